//go:build !(linux && gorun_with)

package main

import "os/exec"

// run runs cmd: the Go floor itself.
func run(cmd *exec.Cmd) error { return cmd.Run() }
