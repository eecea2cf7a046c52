package rpc

import "github.com/toolrpc/toolrpc/codec"

// inline reports whether in runs in the dispatching goroutine, in order: a
// notification, or any call when sequential.
func (s *core) inline(in *inbound) bool { return in.req.ID == nil || s.sequential }

// start runs a call: a notification, or a request when sequential, in the
// calling goroutine; any other request in a worker goroutine (see
// startJob).
func (s *core) start(in *inbound) {
	if s.inline(in) {
		s.run(in)
		return
	}
	s.startJob(work{in: in})
}

// startBatch runs a batch's notifications in the calling goroutine, in
// order (and everything when sequential), and hands its requests to
// workers.
func (s *core) startBatch(b *batch) {
	for _, in := range b.calls {
		if s.inline(in) {
			s.run(in)
		} else {
			b.reqs = append(b.reqs, in)
		}
	}
	if len(b.reqs) > 0 {
		s.offerBatch(b)
	}
	b.add(s, -1, nil) // dispatched: release the batch's extra count
}

// tryHandOff gives in to an idle worker, if one waits, reporting whether
// it did.
func (s *core) tryHandOff(in *inbound) bool {
	select {
	case s.jobs <- work{in: in}:
		return true
	default:
		return false
	}
}

// trySlot takes a slot of the concurrency bound (Options.Concurrency) if
// one is free, for a request to run in the caller's goroutine: the caller
// gives it back (<-s.sem) when the request is answered.
func (s *core) trySlot() bool {
	select {
	case s.sem <- struct{}{}:
		return true
	default:
		return false
	}
}

// startJob hands j (a request, or a batch to claim requests from) to an
// idle worker if there is one, else to a new one once there is room
// (Options.Concurrency). It waits for either; if the core shuts down first,
// j's requests are answered ServerShuttingDown; if the batch's transport
// gives it up first (its client gone), they are settled unanswered.
func (s *core) startJob(j work) {
	select {
	case s.jobs <- j: // an idle worker took it
		return
	default:
	}
	var giveUp <-chan struct{}
	if j.batch != nil {
		giveUp = j.batch.giveUp
	}
	select {
	case s.jobs <- j:
	case s.sem <- struct{}{}:
		s.running.Add(1)
		go s.worker(j)
	case <-s.stopCh:
		if j.in != nil {
			s.refuseCall(j.in, codec.ServerShuttingDown)
		} else {
			s.drainBatch(j.batch) // stopping: answers them ServerShuttingDown
		}
	case <-giveUp:
		for in := j.batch.claim(); in != nil; in = j.batch.claim() {
			s.refuseCall(in, codec.RequestCancelled) // its id freed; the answer is dropped
		}
	}
}

// offerBatch offers a batch's requests to one worker, waiting for one if
// need be, then to more while idle ones or room remain, up to one per
// request: the workers claim them. Until they are all claimed, the batch
// is also open to every worker that finishes a job (see worker).
func (s *core) offerBatch(b *batch) {
	s.openMu.Lock()
	s.openBatches = append(s.openBatches, b)
	s.open.Store(int32(len(s.openBatches)))
	s.openMu.Unlock()
	s.startJob(work{batch: b})
	for range len(b.reqs) - 1 {
		select {
		case s.jobs <- work{batch: b}:
		case s.sem <- struct{}{}:
			s.running.Add(1)
			go s.worker(work{batch: b})
		default:
			return
		}
	}
}

// closeJobs ends the idle workers, and the busy ones after their call.
// Nothing may be handed to workers any more.
func (s *core) closeJobs() { close(s.jobs) }

// worker does j, then the jobs handed to it, until closeJobs. Workers are
// kept for the core's life (at most Options.Concurrency of them): a
// goroutine per call would start on a small stack and grow it through the
// handler's frames every time.
//
// A batch job is one request of the batch (see next): however long a
// batch, the requests that come while it runs get the next worker free.
func (s *core) worker(j work) {
	defer s.running.Done()
	for ok := true; ok; j, ok = s.next() {
		if j.in != nil {
			s.run(j.in)
		} else if in := j.batch.claim(); in != nil {
			s.runClaimed(j.batch, in)
		}
	}
}

// next is a worker's next job: a request handed to the workers (which
// waits for one, see startJob), else the next request of a batch
// dispatched while every worker was busy, the batches in turn, else
// whatever is handed to it first. It reports false once closeJobs was
// called and no batch has requests left to claim.
func (s *core) next() (work, bool) {
	select {
	case j, ok := <-s.jobs:
		if ok {
			return j, true
		}
		return s.nextOpen()
	default:
	}
	if j, ok := s.nextOpen(); ok {
		return j, true
	}
	j, ok := <-s.jobs
	if !ok {
		return s.nextOpen()
	}
	return j, true
}

// nextOpen is the job of claiming the next request of an open batch, if
// there is one.
func (s *core) nextOpen() (work, bool) {
	if b := s.openBatch(); b != nil {
		return work{batch: b}, true
	}
	return work{}, false
}

// drainBatch runs the requests of b no worker has claimed, one after
// another (see runClaimed).
func (s *core) drainBatch(b *batch) {
	for in := b.claim(); in != nil; in = b.claim() {
		s.runClaimed(b, in)
	}
}

// runClaimed runs in, a request of b a worker claimed; once the core
// shuts down it answers it ServerShuttingDown instead, as queued requests
// are, and once b's transport has given b up it settles it unrun, as
// startJob does.
func (s *core) runClaimed(b *batch, in *inbound) {
	switch {
	case s.stopping.Load():
		s.refuseCall(in, codec.ServerShuttingDown)
	case b.givenUp():
		s.refuseCall(in, codec.RequestCancelled) // its id freed; the answer is dropped
	default:
		s.run(in)
	}
}

// openBatch returns a batch with requests no worker has claimed, each in
// turn, or nil, dropping from the list those whose requests are all
// claimed.
func (s *core) openBatch() *batch {
	if s.open.Load() == 0 {
		return nil // the common case, without the lock
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	kept := s.openBatches[:0]
	for _, b := range s.openBatches {
		if int(b.next.Load()) < len(b.reqs) {
			kept = append(kept, b)
		}
	}
	clear(s.openBatches[len(kept):])
	s.open.Store(int32(len(kept)))
	if len(kept) == 0 {
		s.openBatches = nil
		return nil
	}
	s.openBatches = kept
	s.openTurn = (s.openTurn + 1) % len(kept)
	return kept[s.openTurn]
}
