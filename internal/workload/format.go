package workload

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
)

// Format is a trace file format.
type Format uint8

// Formats the package reads.
const (
	FormatUnknown Format = iota
	FormatSWIM           // SWIM TSV (FB-2009)
	FormatSWF            // Standard Workload Format
	FormatCSV            // this package's scenario CSV
)

var formatNames = [...]string{"unknown", "swim", "swf", "csv"}

// String returns "swim", "swf", "csv" or "unknown".
func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", uint8(f))
}

// ParseFormat is the inverse of Format.String ("tsv" is accepted for
// SWIM). It fails with ErrConfig for any other name.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "swim", "tsv":
		return FormatSWIM, nil
	case "swf":
		return FormatSWF, nil
	case "csv":
		return FormatCSV, nil
	}
	return FormatUnknown, configErr("format", ErrConfig, "%q is not swim, swf or csv", s)
}

// DetectFormat guesses a file's format from its name's extension (.tsv,
// .swf, .csv) and, failing that, from head, the first bytes of the file:
// a first non-blank line starting with ';' or having 18 fields is SWF, 6
// fields SWIM, a comma and an "id" column CSV.
func DetectFormat(name string, head []byte) Format {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".tsv":
		return FormatSWIM
	case ".swf":
		return FormatSWF
	case ".csv":
		return FormatCSV
	}
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if line[0] == ';' {
			return FormatSWF
		}
		if bytes.IndexByte(line, ',') >= 0 {
			for _, f := range bytes.Split(line, []byte{','}) {
				if strings.EqualFold(string(bytes.TrimSpace(f)), colID) {
					return FormatCSV
				}
			}
			return FormatUnknown
		}
		var dst [18][]byte
		switch splitFields(line, dst[:]) {
		case 6:
			return FormatSWIM
		case 18:
			return FormatSWF
		}
		return FormatUnknown
	}
	return FormatUnknown
}

// Read reads r in format f with ReadSWIM, ReadSWF or ReadCSV.
func Read(r io.Reader, name string, f Format, opt TraceOptions, rng *rand.Rand) (Workload, error) {
	switch f {
	case FormatSWIM:
		return ReadSWIM(r, name, opt, rng)
	case FormatSWF:
		return ReadSWF(r, name, opt, rng)
	case FormatCSV:
		return ReadCSV(r, name, opt, rng)
	}
	return Workload{}, configErr("format", ErrConfig, "cannot read format %v", f)
}
