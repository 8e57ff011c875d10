package dataset

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"time"
)

// A gzip body is a header, a DEFLATE stream and a trailer holding the CRC-32
// and the length of the uncompressed bytes. DEFLATE blocks ended by a sync
// flush can be followed by blocks from another compressor, so each list is
// compressed once, at load, with a flush after the envelope's start and
// after every record; a request copies the compressed prefix for its count,
// appends the tail (the end of the envelope and generatedAt) as a stored
// block, and extends the prefix's CRC-32 with the tail.

// gzipHeader is a gzip member header: no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// compressed is a list's DEFLATE stream with its flush points.
type compressed struct {
	stream []byte
	ends   []int    // ends[i]: length of the stream holding i records
	crcs   []uint32 // crcs[i]: CRC-32 of the uncompressed bytes up to there
}

func (l *list) compress() {
	var buf bytes.Buffer
	fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	c := compressed{ends: make([]int, 0, len(l.ends)+1), crcs: make([]uint32, 0, len(l.ends)+1)}
	var crc uint32
	prev := 0
	for _, end := range append([]int{len(envelopeStart)}, l.ends...) {
		chunk := l.data[prev:end]
		_, _ = fw.Write(chunk) // a bytes.Buffer does not fail
		_ = fw.Flush()
		crc = crc32.Update(crc, crc32.IEEETable, chunk)
		c.ends = append(c.ends, buf.Len())
		c.crcs = append(c.crcs, crc)
		prev = end
	}
	c.stream = bytes.Clone(buf.Bytes())
	l.gz = c
}

// AppendGzip appends the gzip encoding of the body AppendJSON writes.
func (r Result) AppendGzip(dst []byte, generatedAt time.Time) []byte {
	gz := &r.list.gz
	dst = append(dst, gzipHeader...)
	dst = append(dst, gz.stream[:gz.ends[r.n]]...)
	// The tail goes in a final stored block: after a sync flush the stream
	// is byte-aligned, so the block is a header byte, the length and its
	// complement, then the bytes as they are. Compressing a few dozen
	// bytes would cost more time than the bytes it saves.
	mark := len(dst)
	dst = append(dst, 1, 0, 0, 0, 0) // BFINAL=1, BTYPE=00, LEN, NLEN
	dst = r.appendTail(dst, generatedAt)
	tail := dst[mark+5:]
	n := uint16(len(tail))
	binary.LittleEndian.PutUint16(dst[mark+1:], n)
	binary.LittleEndian.PutUint16(dst[mark+3:], ^n)
	plainLen := len(envelopeStart) + len(tail)
	if r.n > 0 {
		plainLen = r.list.ends[r.n-1] + len(tail)
	}
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Update(gz.crcs[r.n], crc32.IEEETable, tail))
	return binary.LittleEndian.AppendUint32(dst, uint32(plainLen))
}
