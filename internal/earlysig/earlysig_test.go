package earlysig_test

import (
	"slices"
	"testing"

	"guard/internal/earlysig"
	"guard/internal/supervise"
)

// earlysig keeps its own list, so as not to import supervise; it must be
// the one supervise passes on.
func TestSignalsAreSupervisesSignals(t *testing.T) {
	if !slices.Equal(earlysig.Signals, supervise.Signals) {
		t.Errorf("earlysig.Signals = %v; supervise.Signals = %v", earlysig.Signals, supervise.Signals)
	}
}
