// Package testpaths gives tests the paths of files outside their own folder, from the
// repository's root rather than from the test's folder, so a test reads the same file wherever
// its package sits: files of the repository (Repo), and the test material kept beside it in
// the folder named shared (Shared: SAT's certificates, XSLTs and sample CFDIs, the catalogs as
// SQL text), which the repository never copies.
package testpaths

import (
	"os"
	"path/filepath"
	"sync"
)

// root is the repository's root: the nearest folder above the working directory (a test's
// package folder) that holds go.mod; "." when there is none.
var root = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
})

// Repo is the path of elem in the repository.
func Repo(elem ...string) string {
	return filepath.Join(append([]string{root()}, elem...)...)
}

// Shared is the path of elem under the shared folder beside the repository. The file may not
// be there: a test that needs it checks, and skips or fails as it decides.
func Shared(elem ...string) string {
	return filepath.Join(append([]string{root(), "..", "shared"}, elem...)...)
}
