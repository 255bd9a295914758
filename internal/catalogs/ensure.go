package catalogs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/timbra-mx/timbra/internal/catalogs/source"
	"github.com/timbra-mx/timbra/storage"
)

// SourceNone is the --catalogs value that skips importing.
const SourceNone = "none"

// EnsureOptions say what `timbra server --catalogs SPEC` should do.
type EnsureOptions struct {
	// Spec is a source (folder, .zip or URL), SourceNone, or empty: import the public source
	// when the database has no catalogs.
	Spec     string
	Source   source.Options
	Now      time.Time
	Progress func(Progress)
}

// EnsureResult says what Ensure did.
type EnsureResult struct {
	Imported bool
	Set      storage.CatalogSet // the catalogs the database has now (zero when none)
	// Note is a sentence for the log: why nothing was imported, or what was.
	Note string
	// Default tells the public source was tried because the database had none: a failure is
	// then a warning, since the server works without catalogs.
	Default bool
}

// Ensure imports a catalog source when the database has no catalogs, or when the source is
// newer than the catalogs it has (a URL that answers 304 Not Modified is not newer).
func Ensure(ctx context.Context, store storage.Store, opt EnsureOptions) (EnsureResult, error) {
	var res EnsureResult
	current, has, err := currentSet(ctx, store)
	if err != nil {
		return res, err
	}
	res.Set = current
	spec := opt.Spec
	switch {
	case spec == SourceNone:
		res.Note = "catalog import skipped (--catalogs none)"
		return res, nil
	case spec == "" && has:
		res.Note = "catalogs " + current.Version + " already imported"
		return res, nil
	case spec == "":
		spec, res.Default = source.DefaultURL, true
	}
	srcOpt := opt.Source
	if has && current.Source == spec {
		srcOpt.ETag, srcOpt.LastModified = current.ETag, current.LastModified
	}
	src, err := source.Open(ctx, spec, srcOpt)
	if errors.Is(err, source.ErrNotModified) {
		res.Note = "catalogs " + current.Version + " are up to date: " + spec + " has not changed"
		return res, nil
	}
	if err != nil {
		return res, err
	}
	defer src.Close()
	if has && source.CompareVersions(src.Version(), current.Version) <= 0 {
		res.Note = fmt.Sprintf("catalogs %s already imported; %s has version %q, not newer", current.Version, src.Describe(), src.Version())
		return res, nil
	}
	set, err := Import(ctx, store, src, opt.Now, opt.Progress)
	if err != nil {
		return res, err
	}
	res.Imported, res.Set = true, set
	res.Note = fmt.Sprintf("imported catalogs %s from %s", set.Version, set.Source)
	return res, nil
}

func currentSet(ctx context.Context, store storage.Store) (storage.CatalogSet, bool, error) {
	var set storage.CatalogSet
	has := false
	err := store.View(ctx, func(tx storage.Tx) error {
		got, err := tx.Catalogs().Set()
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		set, has = got, err == nil
		return err
	})
	return set, has, err
}
