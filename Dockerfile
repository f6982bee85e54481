# taobench in a container: a static binary (CGO_ENABLED=0: the SQLite
# driver is modernc's pure Go) on distroless, run as a non-root user.
#   docker build -t REGISTRY/taobench:TAG .
# deploy/kubernetes and docs/distributed.md use it.

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -buildvcs=false: the build context holds no .git (.dockerignore), so
# `taobench version` says revision unknown.
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false \
    -ldflags "-s -w" -o /out/taobench ./cmd/taobench

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/taobench /taobench
# 65532 is distroless's "nonroot"; Kubernetes' runAsNonRoot needs a number.
USER 65532:65532
ENTRYPOINT ["/taobench"]
