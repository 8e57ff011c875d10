package commands

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"ballot/archive"
	"ballot/dataset"
)

// watchDelay is how long the dataset must stay unchanged before a reload:
// copying four files, or swapping a link, is a burst of events, and one
// reload should follow the last of them. Tests shorten it before they
// start (SetWatchDelay).
var watchDelay = 250 * time.Millisecond

// datasetWatcher reloads the dataset when the data directory changes. It
// watches these places, re-armed after every change (a directory made again
// under the same name included):
//
//   - the directory holding the data path, for the path itself: a symbolic
//     link swapped with "mv -T", or a directory renamed into place;
//   - when the path is a symbolic link, the directory holding its target,
//     for the target itself, and so on along a link to a link: a target
//     deleted and made again under the same name (rm -rf v1, then a new v1
//     copied into place). A target missing, or whose directory is, is
//     watched for from the nearest directory above it that exists;
//   - the directory the path names (following links), for its files, or
//     for the "..data" link of a Kubernetes ConfigMap volume;
//   - the directory a load reads from (dataset.ResolveDir), for its files;
//   - of an archive, each election's directory (archive.ElectionDirs), for
//     its files, as archive.toml lists them at the last change.
type datasetWatcher struct {
	path   string // the data path, absolute
	parent string // the directory holding path, links resolved
	fs     *fsnotify.Watcher
	// watched maps each directory watched to whether every event in it
	// counts (false: only events naming a step).
	watched map[string]bool
	// steps are the names the data path goes through to its directory
	// now, their directories' links resolved: the path, each link's
	// target, and the missing directories above a missing one. An event
	// naming one may change what the path names.
	steps  map[string]bool
	logger *slog.Logger
}

// maxLinks bounds the symbolic links followed from the data path, as the
// kernel's own limit does, so that a loop of links ends.
const maxLinks = 40

// watchDataset starts watching the data directory dir.
func watchDataset(dir string, logger *slog.Logger) (*datasetWatcher, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	// The parent is named as arm names it, links resolved; when that
	// fails, the watch below fails too, and says why.
	parent := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(parent); err == nil {
		parent = real
	}
	w := &datasetWatcher{path: abs, parent: parent, fs: fw, watched: map[string]bool{}, logger: logger}
	if err := w.fs.Add(w.parent); err != nil {
		_ = fw.Close()
		return nil, err
	}
	w.watched[w.parent] = false
	w.arm()
	logger.Info("watching the dataset for changes", slog.String("path", dir), slog.Duration("delay", watchDelay))
	return w, nil
}

// arm watches the directories the data path resolves to now, and stops
// watching those it no longer does. A directory that cannot be watched
// is logged, unless it is gone (a link's target deleted): the watch on the
// directory above it sees it come back.
func (w *datasetWatcher) arm() {
	want, steps := map[string]bool{}, map[string]bool{}
	w.followLinks(want, steps)
	if dir, err := filepath.EvalSymlinks(w.path); err == nil {
		want[dir] = true
	}
	if dir, err := dataset.ResolveDir(w.path); err == nil {
		want[dir] = true
		// An archive's elections are directories of their own: a
		// change in one is a change of the archive.
		for _, e := range archive.ElectionDirs(dir) {
			want[e] = true
		}
	}
	w.steps = steps
	for dir := range w.watched {
		if _, ok := want[dir]; !ok {
			_ = w.fs.Remove(dir) // fails when dir is gone, and its watch with it
			delete(w.watched, dir)
		}
	}
	// Every wanted directory is added again, even one watched before: a
	// directory deleted and made again under the same name (rm -rf and
	// mkdir, rsync --delete-after) is a new directory, whose old watch
	// went with the old one. Adding a watch that is still there changes
	// nothing.
	for dir, all := range want {
		if err := w.fs.Add(dir); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				w.logger.Warn("cannot watch the dataset directory", slog.String("directory", dir), slog.String("error", err.Error()))
			}
			delete(w.watched, dir)
			continue
		}
		w.watched[dir] = all
	}
}

// followLinks adds to steps each name from the data path to what it names,
// following symbolic links one at a time, and to want the directory that
// holds each (only events naming a step count there). It stops at a name
// that is no link: the dataset's directory, or nothing yet.
func (w *datasetWatcher) followLinks(want, steps map[string]bool) {
	name := w.path
	for range maxLinks {
		watchFor(name, want, steps)
		target, err := os.Readlink(name)
		if err != nil {
			return
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(name), target)
		}
		name = filepath.Clean(target)
	}
}

// watchFor adds name to steps, and to want the directory holding it. A
// directory is named by its path with links resolved, as its watch names
// its events, whichever path it was reached by. When it is missing, each
// missing directory is a step too, and the nearest one above them that
// exists is watched for the first.
func watchFor(name string, want, steps map[string]bool) {
	dir := filepath.Dir(name)
	real, err := filepath.EvalSymlinks(dir)
	for err != nil && dir != filepath.Dir(dir) {
		dir = filepath.Dir(dir)
		real, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return
	}
	want[real] = false
	rel, err := filepath.Rel(dir, name)
	if err != nil {
		return
	}
	for step := filepath.Join(real, rel); step != real; step = filepath.Dir(step) {
		steps[step] = true
	}
}

// counts reports whether an event is a change to the dataset.
func (w *datasetWatcher) counts(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false // permissions and times, not content
	}
	return w.steps[ev.Name] || w.watched[filepath.Dir(ev.Name)]
}

// run calls reload once the dataset has stopped changing for watchDelay,
// after re-arming on what the path now names, until ctx ends. A refused
// dataset is logged by reload; the next change tries again.
func (w *datasetWatcher) run(ctx context.Context, reload func()) {
	timer := time.NewTimer(watchDelay)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if !w.counts(ev) {
				continue
			}
			// A step made, removed or swapped (a link's target made
			// again) is followed at once, so that the files written
			// into a new target before the reload are seen.
			if w.steps[ev.Name] {
				w.arm()
			}
			timer.Reset(watchDelay)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			// Events may have been lost (a queue overflow): reload to
			// be sure of serving what is on disk.
			w.logger.Warn("watching the dataset", slog.String("error", err.Error()))
			timer.Reset(watchDelay)
		case <-timer.C:
			// Armed before reading, so a change during the load is seen
			// and reloads again.
			w.arm()
			w.logger.Info("dataset changed on disk: reloading", slog.String("path", w.path))
			reload()
		}
	}
}

// close stops watching.
func (w *datasetWatcher) close() { _ = w.fs.Close() }
