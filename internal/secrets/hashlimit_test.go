package secrets

import (
	"testing"
	"time"
)

// TestHashPasswordBounded: with every slot taken, a hash waits; it runs once a slot is free.
// (If the bound broke, the hash would finish while the slots are held and the test fails; a
// slow machine can only make it pass late, never fail wrongly.)
func TestHashPasswordBounded(t *testing.T) {
	for range MaxConcurrentHashes {
		hashSlots <- struct{}{}
	}
	done := make(chan string, 1)
	go func() { done <- HashPassword("Clave#2025") }()
	select {
	case <-done:
		t.Fatal("a password was hashed while every slot was taken")
	case <-time.After(300 * time.Millisecond):
	}
	<-hashSlots
	h := <-done
	for range MaxConcurrentHashes - 1 {
		<-hashSlots
	}
	if !CheckPassword(h, "Clave#2025") || CheckPassword(h, "otra") {
		t.Fatal("the hash made after waiting does not check")
	}
}
