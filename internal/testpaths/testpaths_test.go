package testpaths

import (
	"os"
	"path/filepath"
	"testing"
)

// This package is two folders below the root: its paths must equal the relative ones.
func TestPathsFromTheRoot(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Repo("go.mod"), filepath.Join("..", "..", "go.mod")},
		{Shared("sat"), filepath.Join("..", "..", "..", "shared", "sat")},
	} {
		got, _ := filepath.Abs(c.got)
		want, _ := filepath.Abs(c.want)
		if got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
	if _, err := os.Stat(Repo("go.mod")); err != nil {
		t.Fatalf("the root found holds no go.mod: %v", err)
	}
}
