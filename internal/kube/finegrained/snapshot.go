package finegrained

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"k8s.io/klog/v2"

	"github.com/schedkit/schedkit"
	"github.com/schedkit/schedkit/estimate"
	"github.com/schedkit/schedkit/internal/kube/podtask"
)

// The History's snapshot (Args.HistorySnapshot): a JSON file, versioned,
// naming the resource kinds and the History's configuration it was
// learned under, holding each key's learned state (estimate.HistoryEntry)
// least recently observed first. It is bounded by the History's MaxKeys
// (4096 keys of 32 slices of two kinds: about 5 MB at most), and a file
// larger than maxSnapshot is not read. A snapshot that is garbled, of
// another format or version, of other kinds or another configuration
// (bins, smoothing, minimum observations) is refused with a log line,
// and the plugin starts with an empty History: never a crash.

// snapshotFormat and snapshotVersion name the file's format.
const (
	snapshotFormat  = "schedkit.io/finegrained-history"
	snapshotVersion = 1
	maxSnapshot     = 64 << 20
)

// snapshot is the file's content.
type snapshot struct {
	Format          string          `json:"format"`
	Version         int             `json:"version"`
	Kinds           []string        `json:"kinds"`
	Bins            int             `json:"bins"`
	Smoothing       float64         `json:"smoothing"`
	MinObservations int             `json:"minObservations"`
	Entries         []snapshotEntry `json:"entries"`
}

type snapshotEntry struct {
	Logic        string    `json:"logic"`
	DataSize     int64     `json:"dataSize,omitempty"`
	Observations int       `json:"observations"`
	Duration     float64   `json:"duration"`
	Slices       []float64 `json:"slices"`
}

// kinds names podtask.Space's kinds.
func kinds() []string {
	sp := podtask.Space()
	out := make([]string, sp.Len())
	for k := range out {
		out[k] = sp.Kind(k).Name
	}
	return out
}

// encodeSnapshot returns h's snapshot.
func encodeSnapshot(h *estimate.History) ([]byte, error) {
	cfg := h.Config()
	s := snapshot{Format: snapshotFormat, Version: snapshotVersion, Kinds: kinds(), Bins: cfg.Bins,
		Smoothing: cfg.Smoothing, MinObservations: cfg.MinObservations}
	for _, e := range h.Entries() {
		s.Entries = append(s.Entries, snapshotEntry{Logic: e.Key.Logic, DataSize: e.Key.DataSize,
			Observations: e.Observations, Duration: e.Duration, Slices: e.Slices})
	}
	return json.Marshal(s)
}

// decodeSnapshot restores the snapshot b into h (empty); on an error h
// is left empty.
func decodeSnapshot(b []byte, h *estimate.History) error {
	if len(b) > maxSnapshot {
		return fmt.Errorf("%d bytes, more than %d", len(b), maxSnapshot)
	}
	var s snapshot
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return fmt.Errorf("data after the snapshot")
	}
	cfg := h.Config()
	switch {
	case s.Format != snapshotFormat || s.Version != snapshotVersion:
		return fmt.Errorf("format %q version %d, not %q version %d", s.Format, s.Version, snapshotFormat, snapshotVersion)
	case !slices.Equal(s.Kinds, kinds()):
		return fmt.Errorf("kinds %q, not %q", s.Kinds, kinds())
	case s.Bins != cfg.Bins || s.Smoothing != cfg.Smoothing || s.MinObservations != cfg.MinObservations:
		return fmt.Errorf("learned with %d bins, smoothing %v, %d observations; this History has %d, %v, %d",
			s.Bins, s.Smoothing, s.MinObservations, cfg.Bins, cfg.Smoothing, cfg.MinObservations)
	}
	entries := make([]estimate.HistoryEntry, len(s.Entries))
	for i, e := range s.Entries {
		entries[i] = estimate.HistoryEntry{Key: schedkit.SimilarityKey{Logic: e.Logic, DataSize: e.DataSize},
			Observations: e.Observations, Duration: e.Duration, Slices: e.Slices}
	}
	return h.Restore(entries)
}

// restoreHistory reads the snapshot at start: a missing file is a first
// start; any other failure is logged and leaves the History empty.
func (pl *Plugin) restoreHistory(logger klog.Logger) {
	path := pl.args.HistorySnapshot
	if path == "" {
		return
	}
	b, err := readLimited(path)
	if os.IsNotExist(err) {
		logger.Info("No History snapshot yet: starting with an empty History", "plugin", Name, "path", path)
		return
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if err == nil {
		err = decodeSnapshot(b, pl.history)
	}
	if err != nil {
		logger.Error(err, "History snapshot refused: starting with an empty History", "plugin", Name, "path", path)
		return
	}
	pl.snapVersion = pl.history.Version()
	HistoryKeys.Set(float64(pl.history.Len()))
	logger.Info("History restored from its snapshot", "plugin", Name, "path", path, "keys", pl.history.Len())
}

// readLimited reads at most maxSnapshot+1 bytes of path.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSnapshot+1))
}

// SaveHistory writes the History's snapshot (Args.HistorySnapshot) if
// the History changed since the last one: to a file beside it renamed
// over it, so that a reader never sees half a snapshot. The plugin calls
// it after every feed read.
func (pl *Plugin) SaveHistory(ctx context.Context) {
	logger := klog.FromContext(ctx)
	path := pl.args.HistorySnapshot
	if path == "" {
		return
	}
	pl.mu.Lock()
	v := pl.history.Version()
	if v == pl.snapVersion {
		pl.mu.Unlock()
		return
	}
	b, err := encodeSnapshot(pl.history)
	pl.mu.Unlock()
	if err == nil {
		err = writeAtomic(path, b)
	}
	if err != nil {
		logger.Error(err, "Writing the History snapshot", "plugin", Name, "path", path)
		return
	}
	pl.mu.Lock()
	pl.snapVersion = v
	pl.mu.Unlock()
}

// writeAtomic writes b to path through a temporary file in its
// directory.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}
