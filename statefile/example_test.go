package statefile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"guard/internal/jsonx"
	"guard/statefile"
)

// Update reads the document under the lock, lets fn change it, and
// replaces the file atomically; Load reads it without the lock.
func ExampleUpdate() {
	dir, _ := os.MkdirTemp("", "statefile")
	defer os.RemoveAll(dir)
	f, err := statefile.Open(filepath.Join(dir, "counts.json"), statefile.Options{})
	if err != nil {
		panic(err)
	}
	type counts struct {
		Runs int `json:"runs"`
	}
	for range 3 {
		err := statefile.Update(f, func(c *counts) (bool, error) {
			c.Runs++
			return true, nil
		})
		if err != nil {
			panic(err)
		}
	}
	var c counts
	if _, err := statefile.Load(f, &c); err != nil {
		panic(err)
	}
	fmt.Println(c.Runs)
	// Output: 3
}

// Find looks up one value without decoding the rest, for advice read
// without the lock; Members splits an object, checking it as it goes.
func ExampleFind() {
	doc := []byte(`{"version": 1, "hooks": {"lint": {"state": "open"}, "fmt": {"state": "closed"}}}`)
	v, ok := jsonx.Find(doc, "hooks", "lint")
	fmt.Println(string(v), ok)
	top, hooks, err := jsonx.Members(doc, "hooks")
	fmt.Println(len(top), hooks[1].Key, err)
	// Output:
	// {"state": "open"} true
	// 2 fmt <nil>
}
