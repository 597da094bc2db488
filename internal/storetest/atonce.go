package storetest

import "sync"

// AtOnce runs f(0) … f(n-1) in n goroutines released together, and
// returns when all have returned: the way the suites race one operation
// against itself (a link used twice, a code spent twice, keys made past a
// maximum). f writes its outcome to its own index of a slice.
func AtOnce(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			f(i)
		}()
	}
	close(start)
	wg.Wait()
}
