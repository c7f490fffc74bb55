package supervise

import (
	"slices"
	"testing"
)

func TestTreeOf(t *testing.T) {
	// guard is 100, in session 50. Its parent is the shell 50.
	const self, child = 100, 101
	base := []proc{
		{pid: 1, ppid: 0, pgid: 1, sid: 1},
		{pid: 50, ppid: 1, pgid: 50, sid: 50},    // guard's parent, a shell
		{pid: 99, ppid: 50, pgid: 99, sid: 50},   // a pipeline sibling
		{pid: 102, ppid: 101, pgid: 99, sid: 50}, // the child's child
		{pid: 103, ppid: 102, pgid: 99, sid: 50}, // and its child
	}
	tests := []struct {
		name  string
		procs []proc
		want  []int
	}{
		{
			"the child and what it started, never guard, its parent or a sibling",
			append(base,
				proc{pid: self, ppid: 50, pgid: 99, sid: 50},
				proc{pid: child, ppid: self, pgid: 99, sid: 50}),
			[]int{101, 102, 103},
		},
		{
			"a zombie is not stopped, what is below it is",
			append(base,
				proc{pid: self, ppid: 50, pgid: 99, sid: 50},
				proc{pid: child, ppid: self, pgid: 99, sid: 50, zombie: true}),
			[]int{102, 103},
		},
		{
			"what guard adopted (Linux: a subreaper) is stopped",
			[]proc{
				{pid: 1, sid: 1},
				{pid: self, ppid: 1, pgid: self, sid: self},
				{pid: 200, ppid: self, pgid: self, sid: self},
				{pid: 201, ppid: 200, pgid: 201, sid: self}, // a group of its own, same session
			},
			[]int{200, 201},
		},
		{
			"a daemon the hook detached (setsid) is left alone, with what it started",
			[]proc{
				{pid: 1, sid: 1},
				{pid: self, ppid: 1, pgid: self, sid: self},
				{pid: child, ppid: self, pgid: self, sid: self},
				{pid: 300, ppid: child, pgid: 300, sid: 300},
				{pid: 301, ppid: 300, pgid: 300, sid: 300},
				{pid: 302, ppid: self, pgid: 302, sid: 302}, // adopted, but detached
			},
			[]int{101},
		},
		{
			"a child that is itself in a session of its own (guard run -- setsid x) is the hook",
			[]proc{
				{pid: 1, sid: 1},
				{pid: self, ppid: 1, pgid: self, sid: self},
				{pid: child, ppid: self, pgid: child, sid: child},
				{pid: 400, ppid: child, pgid: child, sid: child},
			},
			[]int{101, 400},
		},
		{
			"orphans init adopted (macOS) are found through guard's group when guard leads it",
			[]proc{
				{pid: 1, sid: 1},
				{pid: 50, ppid: 1, pgid: 50, sid: 50},
				{pid: self, ppid: 1, pgid: self, sid: self},
				{pid: 500, ppid: 1, pgid: self, sid: self},
				{pid: 501, ppid: 500, pgid: self, sid: self},
				{pid: 502, ppid: 50, pgid: self, sid: self}, // not an orphan: its parent lives
				{pid: 503, ppid: 1, pgid: 503, sid: self},   // another group
			},
			[]int{500, 501},
		},
		{
			// An orphan's grandchild has a live parent: it is found below
			// the orphan, at once, not only once its parent has died.
			"what an orphan started is found however deep",
			[]proc{
				{pid: 1, sid: 1},
				{pid: self, ppid: 1, pgid: self, sid: self},
				{pid: 500, ppid: 1, pgid: self, sid: self},
				{pid: 501, ppid: 500, pgid: self, sid: self},
				{pid: 504, ppid: 501, pgid: self, sid: self},
				{pid: 505, ppid: 504, pgid: 505, sid: self}, // a group of its own, below the orphan
				{pid: 506, ppid: 504, pgid: 506, sid: 506},  // a daemon: a session of its own
				{pid: 507, ppid: 506, pgid: 506, sid: 506},  // and what it started
			},
			[]int{500, 501, 504, 505},
		},
		{
			"orphans in a group guard does not lead are not its business",
			[]proc{
				{pid: 1, sid: 1},
				{pid: self, ppid: 50, pgid: 99, sid: 50},
				{pid: 500, ppid: 1, pgid: 99, sid: 50},
			},
			nil,
		},
		{
			"guard missing from the table: nothing",
			base,
			nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := treeOf(tc.procs, self, child); !slices.Equal(got, tc.want) {
				t.Errorf("treeOf = %v; want %v", got, tc.want)
			}
		})
	}
}
