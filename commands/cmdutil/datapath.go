package cmdutil

import (
	"os"
	"path/filepath"
	"runtime"
)

// DefaultDataPath is where `timbra server` keeps its database when --data is not given:
// <user data dir>/timbra/timbra.db. The user data folder is $XDG_DATA_HOME or ~/.local/share on
// Linux and other Unix systems, ~/Library/Application Support on macOS, %LocalAppData% on
// Windows. The operator token the server writes sits beside it, at DefaultDataPath()+".admin-token".
func DefaultDataPath() string {
	home, _ := os.UserHomeDir()
	return dataPathFor(runtime.GOOS, os.Getenv, home)
}

func dataPathFor(goos string, getenv func(string) string, home string) string {
	var dir string
	switch goos {
	case "windows":
		dir = getenv("LocalAppData")
		if dir == "" && home != "" {
			dir = filepath.Join(home, "AppData", "Local")
		}
	case "darwin", "ios":
		if home != "" {
			dir = filepath.Join(home, "Library", "Application Support")
		}
	default:
		// the XDG Base Directory specification ignores relative values
		if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
			dir = x
		} else if home != "" {
			dir = filepath.Join(home, ".local", "share")
		}
	}
	if dir == "" {
		// no home folder (a bare service account): the working folder
		return filepath.Join("timbra", "timbra.db")
	}
	return filepath.Join(dir, "timbra", "timbra.db")
}

// AdminTokenSuffix is added to the database path to name the operator token file.
const AdminTokenSuffix = ".admin-token"
