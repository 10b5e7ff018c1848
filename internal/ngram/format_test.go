package ngram

import (
	"bytes"
	"testing"
)

// FuzzLoad feeds random images to the decoder, with and without the
// checksum check (without it, mutations reach the structural validation).
// Any model that decodes must be usable without panicking.
func FuzzLoad(f *testing.F) {
	m := train(f, Corpus{Paths: []string{writeFiles(f, map[string]string{"a.java": "int a = b; int c = a;\n"})}}, 3)
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		f.Fatal(err)
	}
	img := buf.Bytes()
	f.Add(img)
	f.Add(img[:len(img)-4])
	f.Add([]byte("BFNG"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, crc := range []bool{true, false} {
			m, err := decode(data, crc)
			if err != nil {
				continue
			}
			m.ScoreText("int a = b; x")
			m.Score("int", " c = a;")
			m.TopNext("int a", 3)
			if _, err := m.Sample(t.Context(), "int", SampleOptions{N: 2, MaxTokens: 4, Temperature: 1, Seed: 1}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
