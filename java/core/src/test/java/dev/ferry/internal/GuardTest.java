package dev.ferry.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The striped guard: close waits for calls in flight on every thread, and no call starts after it. */
class GuardTest {
    @Test
    void closeRefusesNewCallsAndIsIdempotent() {
        Guard g = new Guard("thing", true);
        g.enter();
        g.exit();
        assertTrue(g.close());
        assertFalse(g.close());
        assertTrue(g.isClosed());
        assertFalse(g.tryEnter());
        IllegalStateException e = assertThrows(IllegalStateException.class, g::enter);
        assertEquals("thing is closed", e.getMessage());
    }

    @Test
    void closeWaitsForCallsInFlightOnOtherThreads() throws Exception {
        Guard g = new Guard("store", true);
        int threads = 8;
        CountDownLatch inside = new CountDownLatch(threads);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            new Thread(() -> {
                g.enter();
                running.incrementAndGet();
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running.decrementAndGet();
                g.exit();
            }).start();
        }
        inside.await();
        AtomicBoolean closed = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            g.close();
            closed.set(running.get() == 0);
        });
        closer.start();
        while (!g.isClosed()) {
            Thread.onSpinWait();
        }
        assertFalse(g.tryEnter(), "no call starts once close has begun");
        release.countDown();
        closer.join();
        assertTrue(closed.get(), "close returned only after every call in flight had exited");
    }

    /** Many threads entering and exiting while one closes: after close returns, nobody is inside. */
    @Test
    void noCallIsInsideOnceCloseReturns() throws Exception {
        for (int round = 0; round < 200; round++) {
            Guard g = new Guard("store", true);
            AtomicInteger inside = new AtomicInteger();
            AtomicBoolean violated = new AtomicBoolean();
            AtomicBoolean closedSeen = new AtomicBoolean();
            Thread[] ts = new Thread[4];
            for (int t = 0; t < ts.length; t++) {
                ts[t] = new Thread(() -> {
                    while (g.tryEnter()) {
                        inside.incrementAndGet();
                        if (closedSeen.get()) {
                            violated.set(true);
                        }
                        inside.decrementAndGet();
                        g.exit();
                    }
                });
                ts[t].start();
            }
            g.close();
            closedSeen.set(true);
            if (inside.get() != 0) {
                violated.set(true);
            }
            for (Thread t : ts) {
                t.join();
            }
            assertFalse(violated.get(), "round " + round + ": a call was inside after close returned");
        }
    }
}
