package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/timbra-mx/timbra/internal/secrets"
)

// rssMB is the resident memory of this process (VmRSS), in MB; 0 where /proc is missing.
func rssMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}

// Memory of a burst of password hashes (argon2id, 64 MiB each), as people created with a
// password at once cause: 64 hashes from 16 goroutines. The resident memory is sampled every
// 5 ms: peak-MB is its highest, over the process's before the burst (base-MB); bound-MB is
// base + secrets.MaxConcurrentHashes × 64 MiB, what the peak may reach; after-MB is the resident
// memory one second after the burst ended (near base is the target).
//
//	go test ./bench -run '^$' -bench 'PasswordBurst' -benchtime 1x
func BenchmarkPasswordBurst(b *testing.B) {
	if rssMB() == 0 {
		b.Skip("no /proc/self/status on this system")
	}
	for range b.N {
		var elapsed time.Duration
		base, peak := peakRSS(func() {
			t0 := time.Now()
			var wg sync.WaitGroup
			work := make(chan int)
			for range 16 {
				wg.Go(func() {
					for range work {
						secrets.HashPassword("correct horse battery staple")
					}
				})
			}
			for i := range 64 {
				work <- i
			}
			close(work)
			wg.Wait()
			elapsed = time.Since(t0)
			time.Sleep(time.Second)
		})
		b.ReportMetric(base, "base-MB")
		b.ReportMetric(peak, "peak-MB")
		b.ReportMetric(base+float64(secrets.MaxConcurrentHashes)*64, "bound-MB")
		b.ReportMetric(rssMB(), "after-MB")
		b.ReportMetric(64/elapsed.Seconds(), "hashes/s")
	}
}
