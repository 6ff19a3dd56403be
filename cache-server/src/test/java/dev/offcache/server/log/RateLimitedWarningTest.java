package dev.offcache.server.log;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.MessageFormatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A flood of events gives a few lines per window; the next line names how many were suppressed. */
class RateLimitedWarningTest
{
    /** Keeps every WARN line. */
    private static final class Lines extends AbstractLogger
    {
        private static final long serialVersionUID = 1L;
        final List<String> lines = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName()
        {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(
            final Level level, final Marker marker, final String format, final Object[] args, final Throwable error)
        {
            lines.add(level + " " + MessageFormatter.basicArrayFormat(format, args));
        }

        @Override
        public boolean isTraceEnabled()
        {
            return false;
        }

        @Override
        public boolean isTraceEnabled(final Marker marker)
        {
            return false;
        }

        @Override
        public boolean isDebugEnabled()
        {
            return false;
        }

        @Override
        public boolean isDebugEnabled(final Marker marker)
        {
            return false;
        }

        @Override
        public boolean isInfoEnabled()
        {
            return true;
        }

        @Override
        public boolean isInfoEnabled(final Marker marker)
        {
            return true;
        }

        @Override
        public boolean isWarnEnabled()
        {
            return true;
        }

        @Override
        public boolean isWarnEnabled(final Marker marker)
        {
            return true;
        }

        @Override
        public boolean isErrorEnabled()
        {
            return true;
        }

        @Override
        public boolean isErrorEnabled(final Marker marker)
        {
            return true;
        }
    }

    @Test
    void aFloodIsCutToTheWindowsLimitAndTheNextLineCountsTheRest()
    {
        final Lines log = new Lines();
        final AtomicLong now = new AtomicLong(5_000);
        final RateLimitedWarning warning = new RateLimitedWarning(log, 3, 1_000, now::get);
        int written = 0;
        for (int i = 0; i < 10; i++)
        {
            written += warning.warn("answered {} on {}", 500, "obj" + i) ? 1 : 0;
        }
        assertEquals(3, written);
        assertEquals(List.of("WARN answered 500 on obj0", "WARN answered 500 on obj1", "WARN answered 500 on obj2"),
            log.lines);
        assertEquals(7, warning.suppressed());

        now.addAndGet(999);
        assertFalse(warning.warn("answered {} on {}", 503, "late"), "still the same window");
        now.addAndGet(1);
        assertTrue(warning.warn("answered {} on {}", 503, "ranges"));
        assertEquals("WARN answered 503 on ranges (8 similar lines suppressed)", log.lines.get(3));
        assertEquals(0, warning.suppressed());
        assertEquals(4, log.lines.size());
    }
}
