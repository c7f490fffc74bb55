package guardrun

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// TestReadBuildInfo holds ReadBuildInfo to debug/buildinfo.ReadFile, on
// Go programs for Linux (ELF), macOS (Mach-O) and Windows (PE: without it,
// guard.exe never handed a database state over to guard-pg.exe, nor the
// dashboard to guard-web.exe), and refuses what is not a Go program.
func TestReadBuildInfo(t *testing.T) {
	dir := t.TempDir()
	progs := []string{os.Args[0]}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, target := range [][2]string{{"darwin", "arm64"}, {"linux", "386"}, {"windows", "amd64"}} {
		if testing.Short() {
			break
		}
		out := filepath.Join(dir, "hello-"+target[0]+"-"+target[1])
		cmd := exec.Command(goTool, "build", "-ldflags=-X main.v=1", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS="+target[0], "GOARCH="+target[1], "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build for %s: %v\n%s", target, err, msg)
		}
		progs = append(progs, out)
	}
	for _, p := range progs {
		want, err := buildinfo.ReadFile(p)
		if err != nil {
			t.Fatalf("buildinfo.ReadFile(%s): %v", p, err)
		}
		got, err := ReadBuildInfo(p)
		if err != nil {
			t.Errorf("ReadBuildInfo(%s): %v", filepath.Base(p), err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ReadBuildInfo(%s) = %+v\nwant %+v", filepath.Base(p), got, want)
		}
	}
	script := filepath.Join(dir, "guard-pg")
	os.WriteFile(script, []byte("#!/bin/sh\nexit 2\n"), 0o755)
	for _, p := range []string{script, "/bin/sh", filepath.Join(dir, "missing"), dir} {
		if info, err := ReadBuildInfo(p); err == nil {
			t.Errorf("ReadBuildInfo(%s) = %v; want an error", p, info)
		}
	}
}
