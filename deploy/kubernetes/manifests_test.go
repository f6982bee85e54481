// Package kubernetes holds the Kubernetes example of docs/distributed.md.
// No cluster runs here, so this test checks the manifests offline: each
// YAML document decodes strictly (unknown fields are errors) into the real
// Kubernetes API types, and what a distributed run depends on is asserted.
package kubernetes

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/taobench/taobench/fleet"
	"github.com/taobench/taobench/run"
	"github.com/taobench/taobench/workload"
)

// objects decodes every document of every manifest, strictly, by kind.
type objects struct {
	jobs       map[string]*batchv1.Job
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
	pvcs       map[string]*corev1.PersistentVolumeClaim
}

func decode(t *testing.T) objects {
	t.Helper()
	o := objects{map[string]*batchv1.Job{}, map[string]*corev1.ConfigMap{}, map[string]*corev1.Secret{}, map[string]*corev1.PersistentVolumeClaim{}}
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			where := fmt.Sprintf("%s document %d", f, i+1)
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			var name string
			switch tm.APIVersion + " " + tm.Kind {
			case "batch/v1 Job":
				var x batchv1.Job
				strict(t, where, doc, &x)
				name, o.jobs[x.Name] = x.Name, &x
			case "v1 ConfigMap":
				var x corev1.ConfigMap
				strict(t, where, doc, &x)
				name, o.configMaps[x.Name] = x.Name, &x
			case "v1 Secret":
				var x corev1.Secret
				strict(t, where, doc, &x)
				name, o.secrets[x.Name] = x.Name, &x
			case "v1 PersistentVolumeClaim":
				var x corev1.PersistentVolumeClaim
				strict(t, where, doc, &x)
				name, o.pvcs[x.Name] = x.Name, &x
			default:
				t.Fatalf("%s: unexpected %s %s", where, tm.APIVersion, tm.Kind)
			}
			if name == "" {
				t.Errorf("%s: no metadata.name", where)
			}
		}
	}
	return o
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func strict(t *testing.T, where, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
}

func TestManifests(t *testing.T) {
	o := decode(t)
	for _, name := range []string{"taobench-run", "taobench-load", "taobench-merge"} {
		if o.jobs[name] == nil {
			t.Fatalf("no Job %s", name)
		}
	}
	cfg, sched := o.configMaps["taobench-config"], o.configMaps["taobench-schedule"]
	if cfg == nil || sched == nil || o.secrets["taobench-db"] == nil || o.pvcs["taobench-results"] == nil {
		t.Fatalf("want ConfigMaps taobench-config and taobench-schedule, Secret taobench-db, PVC taobench-results; have %v %v %v",
			keys(o.configMaps), keys(o.secrets), keys(o.pvcs))
	}
	if !slices.Contains(o.pvcs["taobench-results"].Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("results PVC: drivers on several nodes write it at once: want ReadWriteMany")
	}

	// The drivers: an Indexed Job whose index becomes --driver I/N.
	n := checkIndexed(t, o.jobs["taobench-run"])
	checkIndexed(t, o.jobs["taobench-load"])
	runC := container(t, o.jobs["taobench-run"])
	arg := func(c *corev1.Container, flag string) string {
		for _, a := range c.Args {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return v
			}
		}
		t.Errorf("container %s: no %s=... argument in %q", c.Name, flag, c.Args)
		return ""
	}
	for _, job := range []string{"taobench-run", "taobench-load"} {
		c := container(t, o.jobs[job])
		want := fmt.Sprintf("$(DRIVER_INDEX)/%d", *o.jobs[job].Spec.Completions)
		if got := arg(c, "--driver"); got != want {
			t.Errorf("%s: --driver=%s, want %s (the completion index of %d)", job, got, want, *o.jobs[job].Spec.Completions)
		}
		if e := env(c, "DRIVER_INDEX"); e == nil || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil ||
			e.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("%s: DRIVER_INDEX must come from the completion-index annotation: %+v", job, e)
		}
		// With DRIVER_INDEX expanded, every index is a valid --driver.
		for i := range int(*o.jobs[job].Spec.Completions) {
			if _, err := fleet.Parse("--driver", strings.ReplaceAll(want, "$(DRIVER_INDEX)", fmt.Sprint(i))); err != nil {
				t.Errorf("%s index %d: %v", job, i, err)
			}
		}
		checkDB(t, job, c)
	}
	if arg(runC, "--run-id") != "$(RUN_ID)" || arg(runC, "--start-at") != "$(START_AT)" {
		t.Errorf("run: every driver needs the shared --run-id and --start-at: %q", runC.Args)
	}
	for _, v := range []string{"RUN_ID", "START_AT"} {
		if e := env(runC, v); e == nil || e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil || e.ValueFrom.ConfigMapKeyRef.Name != "taobench-schedule" {
			t.Errorf("run: %s must come from the taobench-schedule ConfigMap: %+v", v, e)
		}
	}
	if err := fleet.CheckRunID("run-id", sched.Data["run-id"]); err != nil {
		t.Error(err)
	}
	if _, rel, err := fleet.ParseStart("start-at", sched.Data["start-at"], metav1.Now().Time); err != nil || rel {
		t.Errorf("start-at %q: want an RFC 3339 instant (%v)", sched.Data["start-at"], err)
	}
	out := arg(runC, "--out")
	if !strings.HasPrefix(out, mountOf(t, o.jobs["taobench-run"], "taobench-results")+"/") || !strings.Contains(out, "$(DRIVER_INDEX)") || !strings.Contains(out, "$(RUN_ID)") {
		t.Errorf("run: --out=%s: want a file per run and driver on the results volume", out)
	}

	// The workload and experiments files are ones taobench accepts.
	dir := t.TempDir()
	for key, flag := range map[string]string{"workload.workload": "--workload", "experiments.txt": "--experiments"} {
		text, ok := cfg.Data[key]
		if !ok {
			t.Fatalf("taobench-config has no %s", key)
		}
		path := filepath.Join(dir, key)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, want := arg(runC, flag), mountOf(t, o.jobs["taobench-run"], "taobench-config")+"/"+key; got != want {
			t.Errorf("run: %s=%s, want %s", flag, got, want)
		}
		if key == "workload.workload" {
			if _, err := workload.Resolve(path); err != nil {
				t.Errorf("ConfigMap %s: %v", key, err)
			}
			continue
		}
		exps, err := run.ParseExperiments(strings.NewReader(text), key)
		if err != nil {
			t.Errorf("ConfigMap %s: %v", key, err)
		}
		for _, x := range exps {
			if x.Threads < int(n) {
				t.Errorf("experiments: %d threads cannot be split across %d drivers", x.Threads, n)
			}
		}
	}

	// The merge step reads every driver's file, 0 to N-1, and writes one.
	mc := container(t, o.jobs["taobench-merge"])
	if len(mc.Args) == 0 || mc.Args[0] != "merge" {
		t.Fatalf("merge job: args %q", mc.Args)
	}
	for i := range int(n) {
		want := strings.ReplaceAll(out, "$(DRIVER_INDEX)", fmt.Sprint(i))
		if !slices.Contains(mc.Args, want) {
			t.Errorf("merge job does not read driver %d's %s: %q", i, want, mc.Args)
		}
	}
	mountOf(t, o.jobs["taobench-merge"], "taobench-results")
	if c := *o.jobs["taobench-merge"].Spec.Completions; c != 1 || o.jobs["taobench-merge"].Spec.CompletionMode != nil && *o.jobs["taobench-merge"].Spec.CompletionMode == batchv1.IndexedCompletion {
		t.Errorf("merge job: one plain completion, got %d", c)
	}

	// Every pod: non-root, resources set.
	for name, j := range o.jobs {
		ps := j.Spec.Template.Spec
		if ps.SecurityContext == nil || ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot ||
			ps.SecurityContext.RunAsUser == nil || *ps.SecurityContext.RunAsUser == 0 {
			t.Errorf("%s: want securityContext runAsNonRoot: true and a non-zero runAsUser", name)
		}
		if ps.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %s: a restarted driver would run late and twice; want Never", name, ps.RestartPolicy)
		}
		for _, c := range ps.Containers {
			r := c.Resources
			if r.Requests.Cpu().IsZero() || r.Requests.Memory().IsZero() || r.Limits.Cpu().IsZero() || r.Limits.Memory().IsZero() {
				t.Errorf("%s/%s: want cpu and memory requests and limits: %+v", name, c.Name, r)
			}
			if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				t.Errorf("%s/%s: want allowPrivilegeEscalation: false", name, c.Name)
			}
		}
	}
}

// checkIndexed asserts an Indexed Job with completions == parallelism and
// returns N.
func checkIndexed(t *testing.T, j *batchv1.Job) int32 {
	t.Helper()
	s := j.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("%s: want completionMode Indexed", j.Name)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != *s.Parallelism || *s.Completions < 1 {
		t.Fatalf("%s: want completions == parallelism (every driver at once), got %v and %v", j.Name, s.Completions, s.Parallelism)
	}
	return *s.Completions
}

func container(t *testing.T, j *batchv1.Job) *corev1.Container {
	t.Helper()
	cs := j.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%s: %d containers, want 1", j.Name, len(cs))
	}
	return &cs[0]
}

func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// checkDB: the database URL comes from the Secret through the environment
// and never appears in the arguments.
func checkDB(t *testing.T, job string, c *corev1.Container) {
	t.Helper()
	e := env(c, "TAOBENCH_DB")
	if e == nil || e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "taobench-db" {
		t.Errorf("%s: TAOBENCH_DB must come from the Secret taobench-db: %+v", job, e)
	}
	if !slices.Contains(c.Args, "--db=env:TAOBENCH_DB") {
		t.Errorf("%s: want --db=env:TAOBENCH_DB (taobench reads the variable itself): %q", job, c.Args)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "$(TAOBENCH_DB)") || strings.Contains(a, "://") {
			t.Errorf("%s: argument %q would put the database URL in the command line", job, a)
		}
	}
}

// mountOf returns where job's volume of the named ConfigMap or claim is
// mounted in its container.
func mountOf(t *testing.T, j *batchv1.Job, source string) string {
	t.Helper()
	c := container(t, j)
	for _, v := range j.Spec.Template.Spec.Volumes {
		cm, pvc := v.ConfigMap != nil && v.ConfigMap.Name == source, v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == source
		if !cm && !pvc {
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name {
				if pvc && m.ReadOnly {
					t.Errorf("%s: %s is mounted read-only", j.Name, source)
				}
				return m.MountPath
			}
		}
	}
	t.Errorf("%s: no volume of %s mounted", j.Name, source)
	return "?"
}

func keys[V any](m map[string]V) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// TestStrictDecoding: a misspelt field is an error, not silently dropped,
// so TestManifests would catch one in the manifests.
func TestStrictDecoding(t *testing.T) {
	doc := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completionsMode: Indexed}\n"
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(doc), &j); err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Errorf("a misspelt field decoded without error: %v", err)
	}
}
