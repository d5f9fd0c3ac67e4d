package diagnose_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kueuebot/kueuebot/diagnose"
	"github.com/kueuebot/kueuebot/i18n"
	"github.com/kueuebot/kueuebot/i18n/i18ntest"
	"github.com/kueuebot/kueuebot/kinds"
)

// TestManifestErrorsInEachLanguage: check's refusals of a manifest keep
// their English text (Message, Error) and render in French, Japanese and
// Chinese with no English prose but the names and commands they quote.
func TestManifestErrorsInEachLanguage(t *testing.T) {
	tests := []struct {
		name, manifest, english string
	}{
		{"empty", "# nothing\n", "The manifest is empty: give me one job's YAML (for example `kueuebot check -f job.yaml`)."},
		{"several", "kind: Job\nmetadata: {name: a}\n---\nkind: Job\nmetadata: {name: b}\n", "The manifest holds 2 YAML documents (Job a, Job b); check takes one job at a time. Split it and check each job, e.g. `kueuebot check -f job.yaml`."},
		{"no kind", "metadata: {name: a}\n", "The manifest has no apiVersion or kind: a job manifest starts with e.g. `apiVersion: batch/v1` and `kind: Job`."},
		{"workload", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Workload\nmetadata: {name: w}\n", "The manifest is a Workload, which Kueue queues as it is; check takes the job that creates one (" + kinds.Sentence() + ")."},
		{"list", "apiVersion: v1\nkind: List\nitems: [{}, {}]\n", "The manifest is a List of 2 objects; check takes one job at a time. Check each item on its own."},
		{"no name", "apiVersion: batch/v1\nkind: Job\nmetadata: {}\n", "The manifest has no metadata.name (or generateName)."},
	}
	for _, tt := range tests {
		_, _, err := diagnose.ParseManifest([]byte(tt.manifest))
		var me *diagnose.ManifestError
		if !errors.As(err, &me) {
			t.Fatalf("%s: error %v, want a *ManifestError", tt.name, err)
		}
		if me.Message != tt.english || me.Error() != tt.english || me.MessageIn(i18n.English) != tt.english {
			t.Errorf("%s: English\n got %q\nwant %q", tt.name, me.Message, tt.english)
		}
		verbatim := append(me.Msg.Verbatims(), "Job a", "Job b", "List", "metadata.name", "generateName", "apiVersion", "kind")
		for _, k := range kinds.All() {
			verbatim = append(verbatim, k.Kind)
		}
		for _, l := range i18n.All()[1:] {
			got := me.MessageIn(l)
			if got == tt.english {
				t.Errorf("%s: %s is the English", tt.name, l)
			}
			i18ntest.AssertTranslated(t, l, got, verbatim...)
		}
	}
}

// TestPlanErrorsInEachLanguage: the pod sets check cannot build say why
// in each language; an unsupported kind is still ErrPlanUnsupported, and
// the English is as before.
func TestPlanErrorsInEachLanguage(t *testing.T) {
	parse := func(s string) error {
		obj, _, err := diagnose.ParseManifest([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		_, err = diagnose.PlannedPodSets(obj)
		return err
	}
	err := parse("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: js}\nspec:\n  replicatedJobs:\n  - name: w\n    template: {spec: {}}\n")
	var pe *diagnose.PlanError
	if !errors.As(err, &pe) || err.Error() != "spec.replicatedJobs[0]: template is missing" || errors.Is(err, diagnose.ErrPlanUnsupported) {
		t.Fatalf("JobSet without a pod template: %v", err)
	}
	for _, l := range i18n.All()[1:] {
		if got := pe.Msg.In(l); got == err.Error() || !strings.Contains(got, "spec.replicatedJobs[0]") {
			t.Errorf("%s: %q", l, got)
		}
	}
	err = parse("apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata: {name: tj}\nspec: {}\n")
	if !errors.Is(err, diagnose.ErrPlanUnsupported) || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), diagnose.ErrPlanUnsupported.Error()+": a TrainJob's pods come from") {
		t.Fatalf("TrainJob: %v", err)
	}
	for _, l := range i18n.All()[1:] {
		i18ntest.AssertTranslated(t, l, pe.Msg.In(l), append(pe.Msg.Verbatims(), "TrainJob", "TrainingRuntime", "Trainer", "JobSet", "spec.runtimeRef")...)
	}
}
