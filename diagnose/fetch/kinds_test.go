package fetch

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kueuebot/kueuebot/diagnose"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in      string
		want    diagnose.Target
		wantErr bool
	}{
		{in: "my-job", want: diagnose.Target{Kind: "Job", Namespace: "ns", Name: "my-job"}},
		{in: "job/my-job", want: diagnose.Target{Kind: "Job", Namespace: "ns", Name: "my-job"}},
		{in: "Jobs/my-job", want: diagnose.Target{Kind: "Job", Namespace: "ns", Name: "my-job"}},
		{in: "jobs.batch/my-job", want: diagnose.Target{Kind: "Job", Namespace: "ns", Name: "my-job"}},
		{in: "JobSet/js", want: diagnose.Target{Kind: "JobSet", Namespace: "ns", Name: "js"}},
		{in: "rayjob/r", want: diagnose.Target{Kind: "RayJob", Namespace: "ns", Name: "r"}},
		{in: "rayclusters/r", want: diagnose.Target{Kind: "RayCluster", Namespace: "ns", Name: "r"}},
		{in: "PyTorchJob/p", want: diagnose.Target{Kind: "PyTorchJob", Namespace: "ns", Name: "p"}},
		{in: "tfjobs/p", want: diagnose.Target{Kind: "TFJob", Namespace: "ns", Name: "p"}},
		{in: "xgboostjob/p", want: diagnose.Target{Kind: "XGBoostJob", Namespace: "ns", Name: "p"}},
		{in: "paddlejob/p", want: diagnose.Target{Kind: "PaddleJob", Namespace: "ns", Name: "p"}},
		{in: "jaxjob/p", want: diagnose.Target{Kind: "JAXJob", Namespace: "ns", Name: "p"}},
		{in: "mpijob/p", want: diagnose.Target{Kind: "MPIJob", Namespace: "ns", Name: "p"}},
		{in: "trainjob/p", want: diagnose.Target{Kind: "TrainJob", Namespace: "ns", Name: "p"}},
		{in: "lws/p", want: diagnose.Target{Kind: "LeaderWorkerSet", Namespace: "ns", Name: "p"}},
		{in: "appwrapper/p", want: diagnose.Target{Kind: "AppWrapper", Namespace: "ns", Name: "p"}},
		{in: "po/p", want: diagnose.Target{Kind: "Pod", Namespace: "ns", Name: "p"}},
		{in: "wl/job-x-12345", want: diagnose.Target{Kind: "Workload", Namespace: "ns", Name: "job-x-12345"}},
		{in: "Workload/w", want: diagnose.Target{Kind: "Workload", Namespace: "ns", Name: "w"}},
		{in: " job/x ", want: diagnose.Target{Kind: "Job", Namespace: "ns", Name: "x"}},
		{in: "daemonset/x", wantErr: true},
		{in: "sts/web", want: diagnose.Target{Kind: "StatefulSet", Namespace: "ns", Name: "web"}},
		{in: "jobs.ray.io/x", wantErr: true},
		{in: "job/", wantErr: true},
		{in: "", wantErr: true},
		{in: "a/b/c", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTarget(tc.in, "ns")
			if tc.wantErr {
				if !errors.Is(err, ErrBadTarget) {
					t.Errorf("ParseTarget(%q) error = %v, want ErrBadTarget", tc.in, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseTarget(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
