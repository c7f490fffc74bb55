//go:build stress

package tests

const stress = true
