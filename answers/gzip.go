package answers

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"
	"time"

	"ballot/dataset"
)

// A gzip body is a header, a DEFLATE stream and a trailer holding the CRC-32
// and the length of the uncompressed bytes. DEFLATE blocks ended by a sync
// flush can be followed by blocks from another writer, so each list is
// compressed once, at load, with a flush at the counts answers have most
// (every count up to 20, then every multiple of 10, and the whole list). A
// request copies the compressed stream up to the flush point at or below
// its count, appends the few records past it and the tail (the end of the
// envelope and generatedAt) as stored blocks, and extends the CRC-32 with
// them. Flushing after every record instead would cost a Huffman table per
// record: a slower load and a third more bytes.

// gzipHeader is a gzip member header: no name, no time, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// compressed is a list's DEFLATE stream with its flush points.
type compressed struct {
	stream []byte
	ends   []int    // ends[n]: length of the stream holding n records, or -1 if n is no flush point
	crcs   []uint32 // crcs[n]: CRC-32 of the uncompressed bytes up to there
	// whole is the count of ends[1] and crcs[1] for a list given whole
	// (parties, districts), whose only flush points are 0 and the whole
	// list: a slot per count would take memory for each record. 0 for a
	// list a limit applies to.
	whole int
}

// flush returns the flush point at or below n records: its count, the
// length of the stream up to it and the CRC-32 of the bytes it holds.
func (c *compressed) flush(n int) (int, int, uint32) {
	if c.whole > 0 {
		if n >= c.whole {
			return c.whole, c.ends[1], c.crcs[1]
		}
		return 0, c.ends[0], c.crcs[0]
	}
	for c.ends[n] < 0 {
		n--
	}
	return n, c.ends[n], c.crcs[n]
}

// isFlushPoint says which counts get a flush point.
func isFlushPoint(n, total int, limited bool) bool {
	if !limited {
		return n == 0 || n == total
	}
	return n <= dataset.MaxLimit && (n <= 20 || n%10 == 0 || n == total)
}

// compressor is a DEFLATE writer appending to a byte slice. Every
// compression the project does takes one from compressors: a new writer
// allocates about a megabyte of tables, and one per list was most of the
// time a small dataset took to load.
type compressor struct {
	fw    *flate.Writer
	out   appender
	level int
}

// appender is an io.Writer that appends to a slice.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// The levels compressors keeps writers of, one pool each: a writer's
// level is fixed when it is made.
const (
	// listLevel compresses the lists at load, once: the default level.
	listLevel = flate.DefaultCompression
	// requestLevel compresses what is made on request (a page past the
	// first, picked records, a CSV download): the fastest, which allocates
	// nothing once warm and still takes a CSV to about a sixth of its size.
	requestLevel = flate.BestSpeed
	// documentLevel compresses the documents prepared at load (the index,
	// OpenAPI, the catalogue, the pages): as small as they get.
	documentLevel = flate.BestCompression
)

// compressorPool is the one pool of DEFLATE writers, by level.
type compressorPool struct {
	byLevel map[int]*sync.Pool
}

var compressors = func() compressorPool {
	p := compressorPool{byLevel: map[int]*sync.Pool{}}
	for _, level := range []int{listLevel, requestLevel, documentLevel} {
		p.byLevel[level] = &sync.Pool{New: func() any {
			c := &compressor{level: level}
			c.fw, _ = flate.NewWriter(&c.out, level) // a valid level does not fail
			return c
		}}
	}
	return p
}()

// get returns a compressor at level, writing to an empty slice.
func (p compressorPool) get(level int) *compressor {
	return p.byLevel[level].Get().(*compressor)
}

// put returns c to the pool; what it wrote is no longer its.
func (p compressorPool) put(c *compressor) {
	c.out.b = nil
	p.byLevel[c.level].Put(c)
}

// compress prepares the list's gzip encoding with lc. Lists a limit applies
// to need no flush point past MaxLimit.
func (l *list) compress(lc *compressor, limited bool) {
	last := len(l.ends)
	if limited {
		last = min(last, dataset.MaxLimit)
	}
	var c compressed
	if limited || last <= 1 {
		c.ends, c.crcs = make([]int, last+1), make([]uint32, last+1)
	} else {
		c.ends, c.crcs, c.whole = make([]int, 2), make([]uint32, 2), last
	}
	fw := lc.fw
	lc.out.b = lc.out.b[:0]
	fw.Reset(&lc.out)
	var crc uint32
	prev := 0
	for n := 0; n <= last; n++ {
		slot := n
		if c.whole > 0 {
			slot = min(n, 1)
		} else {
			c.ends[n] = -1
		}
		if !isFlushPoint(n, len(l.ends), limited) {
			continue
		}
		end := l.end(n)
		_, _ = fw.Write(l.data[prev:end]) // a bytes.Buffer does not fail
		_ = fw.Flush()
		crc = crc32.Update(crc, crc32.IEEETable, l.data[prev:end])
		c.ends[slot] = len(lc.out.b)
		c.crcs[slot] = crc
		prev = end
	}
	c.stream = bytes.Clone(lc.out.b)
	l.gz = c
}

// AppendGzip appends the gzip encoding of the body AppendJSON writes.
func (r Result) AppendGzip(dst []byte, generatedAt time.Time) []byte {
	head, prepared := r.PreparedGzip()
	if prepared == nil {
		return r.appendGzipPage(dst, generatedAt)
	}
	dst = append(dst, head...)
	dst = append(dst, prepared...)
	return r.AppendGzipRest(dst, generatedAt)
}

// PreparedGzip returns the body AppendGzip appends up to what is made
// for the answer, as PreparedRun does for AppendJSON's: head, the gzip
// header, and prepared, the list's stream compressed at load up to the
// flush point at or below the count (shared: never to be changed);
// AppendGzipRest appends the rest. nil, nil for an answer compressed on
// request.
func (r Result) PreparedGzip() (head, prepared []byte) {
	if start, run := r.res.Run(); !run || start > 0 || r.l.gz.stream == nil {
		return nil, nil
	}
	_, end, _ := r.l.gz.flush(r.res.Count())
	return gzipHeader, r.l.gz.stream[:end]
}

// AppendGzipRest appends what follows PreparedGzip's bytes: the records
// past the flush point and the tail, then the gzip trailer.
func (r Result) AppendGzipRest(dst []byte, generatedAt time.Time) []byte {
	n := r.res.Count()
	p, _, crc := r.l.gz.flush(n)
	// After a sync flush the stream is byte-aligned, so stored blocks can
	// follow: a header byte, the length and its complement, then the bytes
	// as they are. Compressing them would cost more time than it saves.
	extra := r.l.data[r.l.end(p):r.l.end(n)]
	crc = crc32.Update(crc, crc32.IEEETable, extra)
	for len(extra) > 0 {
		chunk := extra[:min(len(extra), 0xffff)]
		dst = appendStored(dst, chunk, false)
		extra = extra[len(chunk):]
	}
	return r.appendGzipTail(dst, crc, r.l.end(n), generatedAt)
}

// appendGzipTail ends a gzip body whose DEFLATE stream so far is
// byte-aligned and holds size bytes of CRC-32 crc: the tail of the envelope
// as the final, stored block, then the gzip trailer.
func (r Result) appendGzipTail(dst []byte, crc uint32, size int, generatedAt time.Time) []byte {
	mark := len(dst)
	dst = append(dst, finalStoredHead...)
	dst = r.AppendTail(dst, generatedAt)
	return endGzip(dst, mark, crc, size)
}

// finalStoredHead is the head of the final, stored block that holds an
// answer's tail, its length filled in by endGzip: BFINAL=1, BTYPE=00,
// LEN, NLEN.
var finalStoredHead = []byte{1, 0, 0, 0, 0}

// endGzip ends a gzip body whose final stored block, begun at mark with
// finalStoredHead, holds the tail appended after it, the DEFLATE stream
// before mark holding size bytes of CRC-32 crc: the block's length, then
// the gzip trailer.
func endGzip(dst []byte, mark int, crc uint32, size int) []byte {
	tail := dst[mark+len(finalStoredHead):]
	n := uint16(len(tail))
	binary.LittleEndian.PutUint16(dst[mark+1:], n)
	binary.LittleEndian.PutUint16(dst[mark+3:], ^n)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.Update(crc, crc32.IEEETable, tail))
	return binary.LittleEndian.AppendUint32(dst, uint32(size+len(tail)))
}

// A page past the first starts at a record no flush point can start at:
// the prepared stream's back-references reach into the records before it.
// Its records are compressed when asked for, at the fastest level, by
// pooled writers that allocate nothing once warm. Preparing a stream that
// any offset could start from would mean restarting the compressor every
// few records, which costs the first pages (the answers asked for most) a
// good part of their compression, or a second copy of every list.

var envelopeStartBytes = []byte(envelopeStart)

// appendGzipPage appends the gzip encoding of a page past the first, of
// a page of readers' filters, whose list is not compressed at load, of
// an answer of picked records, or of any answer of PrepareJSON.
func (r Result) appendGzipPage(dst []byte, generatedAt time.Time) []byte {
	c := compressors.get(requestLevel)
	c.out.b = append(dst, gzipHeader...)
	c.fw.Reset(&c.out)
	crc, size := uint32(0), 0
	write := func(b []byte) {
		_, _ = c.fw.Write(b) // an appender does not fail
		crc = crc32.Update(crc, crc32.IEEETable, b)
		size += len(b)
	}
	write(envelopeStartBytes)
	if start, run := r.res.Run(); run {
		write(r.runRecords(start))
	} else {
		for i := range r.res.Count() {
			if i > 0 {
				write(comma)
			}
			write(r.Record(i))
		}
	}
	_ = c.fw.Flush() // byte-aligned, not final: the tail follows
	dst = c.out.b
	compressors.put(c)
	return r.appendGzipTail(dst, crc, size, generatedAt)
}

var comma = []byte(",")

// appendStored appends b as one stored DEFLATE block.
func appendStored(dst, b []byte, final bool) []byte {
	var head byte
	if final {
		head = 1
	}
	n := uint16(len(b))
	dst = append(dst, head, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
	return append(dst, b...)
}

// gzipMember appends to dst body compressed whole as a gzip member at level
// (requestLevel for what is made on request, documentLevel for what is
// prepared at load), as compress/gzip writes it.
func gzipMember(dst, body []byte, level int) []byte {
	c := compressors.get(level)
	c.out.b = append(dst, gzipHeader...)
	// The extra flags say the level, as compress/gzip sets them.
	switch level {
	case flate.BestCompression:
		c.out.b[len(c.out.b)-2] = 2
	case flate.BestSpeed:
		c.out.b[len(c.out.b)-2] = 4
	}
	c.fw.Reset(&c.out)
	_, _ = c.fw.Write(body) // an appender does not fail
	_ = c.fw.Close()
	dst = binary.LittleEndian.AppendUint32(c.out.b, crc32.ChecksumIEEE(body))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(body)))
	compressors.put(c)
	return dst
}

// GzipDocument compresses a document prepared at load, as small as it gets.
func GzipDocument(body []byte) []byte { return gzipMember(nil, body, documentLevel) }

// GzipOnRequest appends to dst a body made on request compressed, at the
// fastest level.
func GzipOnRequest(dst, body []byte) []byte { return gzipMember(dst, body, requestLevel) }

// WriteGzip writes to w the gzip encoding of what write writes, as
// GzipOnRequest compresses a body made on request, but compressed as it
// is written, a download of any size never held whole. It stops at the
// first write to w that fails.
func WriteGzip(w io.Writer, write func(io.Writer) error) error {
	c := compressors.get(requestLevel)
	defer compressors.put(c)
	header := append(c.out.b[:0], gzipHeader...)
	header[len(header)-2] = 4 // the extra flags of the fastest level, as compress/gzip sets them
	if _, err := w.Write(header); err != nil {
		return err
	}
	c.fw.Reset(w)
	body := &crcWriter{w: c.fw}
	if err := write(body); err != nil {
		return err
	}
	if err := c.fw.Close(); err != nil {
		return err
	}
	trailer := binary.LittleEndian.AppendUint32(header[:0], body.crc)
	trailer = binary.LittleEndian.AppendUint32(trailer, uint32(body.size))
	_, err := w.Write(trailer)
	return err
}

// crcWriter writes to w, keeping the CRC-32 and the length of what it
// wrote, a gzip member's trailer.
type crcWriter struct {
	w    io.Writer
	crc  uint32
	size int
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	c.size += n
	return n, err
}
