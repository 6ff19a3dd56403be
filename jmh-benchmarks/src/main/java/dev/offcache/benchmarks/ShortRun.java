package dev.offcache.benchmarks;

import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The run length the micro-benchmarks here share: three warm-up and five measured iterations of one second each, in
 * one fork. A benchmark class extends this instead of repeating the three annotations (JMH reads them from the
 * superclass; an annotation on the benchmark class or method still wins, and so do {@code -wi}, {@code -i},
 * {@code -w}, {@code -r} and {@code -f}). Mode, time unit and state scope stay on each benchmark, next to what it
 * measures.
 */
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public abstract class ShortRun
{
}
