package archtest

import (
	"os/exec"
	"testing"
)

// TestLayersPatchApplies: bench/load/layers.sh measures what each layer of
// a request costs by building the service with bench/load/layers.patch,
// which adds two switches to internal/api/routes.go and
// internal/server/middleware.go. A change to those files must keep the
// patch applying, or the benchmark breaks unnoticed. To remake it: apply
// what still applies (git apply --reject), mend, and write git diff of
// the two files back to the patch.
func TestLayersPatchApplies(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cmd := exec.Command("git", "apply", "--check", "bench/load/layers.patch")
	cmd.Dir = "../.."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bench/load/layers.patch no longer applies: %v\n%s", err, out)
	}
}
