package commands

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"ballot/dataset"
)

// watchDelay is how long the dataset must stay unchanged before a reload:
// copying four files, or swapping a link, is a burst of events, and one
// reload should follow the last of them.
const watchDelay = 250 * time.Millisecond

// datasetWatcher reloads the dataset when the data directory changes. It
// watches three places, re-armed after every change (a directory made again
// under the same name included):
//
//   - the directory holding the data path, for the path itself: a symbolic
//     link swapped with "mv -T", or a directory renamed into place;
//   - the directory the path names (following links), for its files, or
//     for the "..data" link of a Kubernetes ConfigMap volume;
//   - the directory a load reads from (dataset.ResolveDir), for its files.
type datasetWatcher struct {
	path   string // the data path, absolute
	parent string // the directory holding path
	fs     *fsnotify.Watcher
	// watched maps each directory watched to whether every event in it
	// counts (false: only events naming path).
	watched map[string]bool
	logger  *slog.Logger
}

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
	w := &datasetWatcher{path: abs, parent: filepath.Dir(abs), fs: fw, watched: map[string]bool{}, logger: logger}
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
// (a link swapped to nowhere) is logged; the parent's watch still sees the
// next swap.
func (w *datasetWatcher) arm() {
	want := map[string]bool{w.parent: false}
	if dir, err := filepath.EvalSymlinks(w.path); err == nil {
		want[dir] = true
	}
	if dir, err := dataset.ResolveDir(w.path); err == nil {
		want[dir] = true
	}
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
			w.logger.Warn("cannot watch the dataset directory", slog.String("directory", dir), slog.String("error", err.Error()))
			delete(w.watched, dir)
			continue
		}
		w.watched[dir] = all
	}
}

// counts reports whether an event is a change to the dataset.
func (w *datasetWatcher) counts(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false // permissions and times, not content
	}
	return ev.Name == w.path || w.watched[filepath.Dir(ev.Name)]
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
			if w.counts(ev) {
				timer.Reset(watchDelay)
			}
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
