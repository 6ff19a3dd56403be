package dev.offcache.core.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.offcache.core.region.MappedRegion;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class JournalTest
{
    private static final int SEGMENT = 4096;

    @TempDir
    Path dir;

    private long liveMappingsBefore;

    @BeforeEach
    void recordLiveMappings()
    {
        liveMappingsBefore = MappedRegion.liveMappings();
    }

    @AfterEach
    void noMappingLeaks()
    {
        assertEquals(liveMappingsBefore, MappedRegion.liveMappings(), "a mapping leaked");
    }

    record Entry(long position, byte[] payload)
    {
    }

    private Journal open()
    {
        return Journal.open(new Journal.Context().directory(dir).segmentSize(SEGMENT));
    }

    static byte[] payload(final int index)
    {
        final byte[] bytes = new byte[(index * 37) % 301];
        new Random(index).nextBytes(bytes);
        return bytes;
    }

    static List<Entry> appendRecords(final Journal journal, final int from, final int count)
    {
        final List<Entry> entries = new ArrayList<>();
        for (int i = from; i < from + count; i++)
        {
            final byte[] payload = payload(i);
            entries.add(new Entry(journal.append(new UnsafeBuffer(payload), 0, payload.length), payload));
        }
        return entries;
    }

    static List<Entry> readAll(final Journal journal)
    {
        final List<Entry> entries = new ArrayList<>();
        journal.forEach((buffer, offset, length, position) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            entries.add(new Entry(position, bytes));
        });
        return entries;
    }

    static void assertEntries(final List<Entry> expected, final List<Entry> actual)
    {
        assertEquals(expected.size(), actual.size(), "record count");
        for (int i = 0; i < expected.size(); i++)
        {
            assertEquals(expected.get(i).position(), actual.get(i).position(), "position of record " + i);
            assertArrayEquals(expected.get(i).payload(), actual.get(i).payload(), "payload of record " + i);
        }
    }

    /**
     * The segment file and offset inside it of a record, from its position and the segment base in the file name.
     */
    static long offsetIn(final Path segment, final long position)
    {
        return position - JournalFormat.parseSegmentFileName(segment.getFileName().toString());
    }

    static Path segmentOf(final List<Path> segments, final long position)
    {
        Path result = null;
        for (final Path segment : segments)
        {
            if (JournalFormat.parseSegmentFileName(segment.getFileName().toString()) <= position)
            {
                result = segment;
            }
        }
        return result;
    }

    static void xorByte(final Path path, final long offset, final int mask) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ mask)).rewind();
            channel.write(one, offset);
        }
    }

    static void fill(final Path path, final long from, final long to, final byte value) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE))
        {
            final byte[] bytes = new byte[(int) (to - from)];
            Arrays.fill(bytes, value);
            channel.write(ByteBuffer.wrap(bytes), from);
        }
    }

    @Test
    void recordsRoundTripAcrossSegmentsAndReopen()
    {
        final List<Entry> written;
        try (Journal journal = open())
        {
            written = appendRecords(journal, 0, 200);
            assertTrue(journal.segmentCount() > 5, "segments: " + journal.segmentCount());
            assertEquals(liveMappingsBefore + journal.segmentCount(), MappedRegion.liveMappings());
            for (int i = 1; i < written.size(); i++)
            {
                assertTrue(written.get(i).position() > written.get(i - 1).position());
            }
            journal.force();
            assertEntries(written, readAll(journal));
        }
        try (Journal journal = open())
        {
            assertEntries(written, readAll(journal));
            assertEquals(-1, journal.droppedTailPosition());
            final List<Entry> more = appendRecords(journal, 200, 10);
            assertTrue(more.get(0).position() > written.get(written.size() - 1).position());
            final List<Entry> all = new ArrayList<>(written);
            all.addAll(more);
            assertEntries(all, readAll(journal));
        }
    }

    @Test
    void sparseSegmentsHoldTheSameRecords() throws IOException
    {
        assertTrue(new Journal.Context().preallocate(), "preallocation is the default");
        final List<Entry> written;
        try (Journal journal = Journal.open(
            new Journal.Context().directory(dir).segmentSize(SEGMENT).preallocate(false)))
        {
            written = appendRecords(journal, 0, 60);
            for (final Path segment : journal.segmentFiles())
            {
                assertEquals(SEGMENT, Files.size(segment));
            }
        }
        try (Journal journal = open())
        {
            assertEntries(written, readAll(journal));
            assertEquals(-1, journal.droppedTailPosition());
        }
    }

    @Test
    void emptyRecordsAndAFullSegmentRecordWork()
    {
        try (Journal journal = open())
        {
            final int max = journal.maxRecordLength();
            assertEquals(SEGMENT - JournalFormat.HEADER_LENGTH - JournalFormat.FRAME_HEADER_LENGTH, max);
            final long empty = journal.append(new UnsafeBuffer(new byte[0]), 0, 0);
            final byte[] big = new byte[max];
            new Random(1).nextBytes(big);
            final long full = journal.append(new UnsafeBuffer(big), 0, max);
            final long afterFull = journal.append(new UnsafeBuffer(new byte[0]), 0, 0);
            assertEquals(List.of(JournalFormat.HEADER_LENGTH + 0L, SEGMENT + (long) JournalFormat.HEADER_LENGTH,
                2L * SEGMENT + JournalFormat.HEADER_LENGTH), List.of(empty, full, afterFull));
            assertEntries(List.of(new Entry(empty, new byte[0]), new Entry(full, big),
                new Entry(afterFull, new byte[0])), readAll(journal));
        }
        try (Journal journal = open())
        {
            assertEquals(3, readAll(journal).size());
        }
    }

    @Test
    void aRecordLargerThanASegmentIsRefusedClearly()
    {
        try (Journal journal = open())
        {
            final int tooBig = journal.maxRecordLength() + 1;
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> journal.append(new UnsafeBuffer(new byte[tooBig]), 0, tooBig));
            assertTrue(ex.getMessage().contains(Integer.toString(tooBig)) &&
                ex.getMessage().contains("segmentSize"), ex.getMessage());
            assertThrows(IndexOutOfBoundsException.class,
                () -> journal.append(new UnsafeBuffer(new byte[10]), 5, 6));
            assertEquals(List.of(), readAll(journal));
        }
    }

    @Test
    void contextIsValidated()
    {
        assertThrows(IllegalArgumentException.class, () -> new Journal.Context().conclude());
        for (final int bad : new int[] {0, 4095, 4097, 6000, Integer.MAX_VALUE})
        {
            final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
                () -> new Journal.Context().directory(dir).segmentSize(bad).conclude());
            assertTrue(ex.getMessage().contains("segmentSize"), ex.getMessage());
        }
        new Journal.Context().directory(dir).segmentSize(8192).conclude();
    }

    @Test
    void theDirectoryCanBeOpenedOnlyOnceAndUseAfterCloseIsRefused()
    {
        final Journal journal = open();
        assertThrows(IllegalStateException.class, this::open);
        journal.close();
        journal.close();
        assertThrows(IllegalStateException.class, () -> journal.append(new UnsafeBuffer(new byte[1]), 0, 1));
        assertThrows(IllegalStateException.class, () -> journal.forEach((b, o, l, p) -> fail("no record expected")));
        try (Journal again = open())
        {
            assertEquals(1, again.segmentCount());
        }
    }

    @Test
    void rollAndDeleteSegmentsBefore()
    {
        final List<Entry> kept = new ArrayList<>();
        final long keepFrom;
        try (Journal journal = open())
        {
            journal.roll();
            assertEquals(1, journal.segmentCount(), "rolling an empty segment does nothing");
            appendRecords(journal, 0, 3);
            journal.roll();
            appendRecords(journal, 3, 3);
            journal.roll();
            kept.addAll(appendRecords(journal, 6, 3));
            journal.roll();
            kept.addAll(appendRecords(journal, 9, 3));
            assertEquals(4, journal.segmentCount());
            assertEquals(3L * SEGMENT + JournalFormat.HEADER_LENGTH, kept.get(3).position());

            keepFrom = kept.get(1).position();
            assertEquals(2, journal.deleteSegmentsBefore(keepFrom));
            assertEquals(0, journal.deleteSegmentsBefore(keepFrom));
            assertEquals(2L * SEGMENT, journal.startPosition());
            assertEquals(2, journal.segmentCount());
            assertEntries(kept, readAll(journal));
            assertEquals(1, journal.deleteSegmentsBefore(Long.MAX_VALUE), "the current segment always stays");
            assertEquals(1, journal.segmentCount());
        }
        try (Journal journal = open())
        {
            assertEquals(3L * SEGMENT, journal.startPosition());
            assertEntries(kept.subList(3, 6), readAll(journal));
            final long next = journal.append(new UnsafeBuffer(new byte[1]), 0, 1);
            assertEquals(kept.get(5).position() + JournalFormat.alignedFrameLength(
                JournalFormat.FRAME_HEADER_LENGTH + kept.get(5).payload().length), next);
        }
    }

    /**
     * Writes 40 records (several segments) without forcing, takes what a crash would leave on disk at that point,
     * lets {@code damage} hurt the image's file holding the last record (the records in it were never acknowledged),
     * opens the image and checks that exactly the records before {@code firstLost} survive and that appending resumes
     * at the first lost record's position.
     */
    private void assertTailDropped(final int firstLost, final TailDamage damage) throws IOException
    {
        assertTailDropped(firstLost, true, damage);
    }

    private void assertTailDropped(final int firstLost, final boolean leavesBytes, final TailDamage damage)
        throws IOException
    {
        final List<Entry> written;
        final Path image;
        final Path lastSegment;
        try (Journal journal = open())
        {
            written = appendRecords(journal, 0, 40);
            final Path last = segmentOf(journal.segmentFiles(), written.get(39).position());
            assertEquals(segmentOf(journal.segmentFiles(), written.get(firstLost).position()), last,
                "test setup: damaged records must all be in the last segment");
            assertEquals(journal.segmentFiles().get(journal.segmentCount() - 1), last);
            image = crashImage();
            lastSegment = image.resolve(last.getFileName());
        }
        damage.apply(lastSegment, written);

        final List<Entry> intact = written.subList(0, firstLost);
        try (Journal journal = open(image))
        {
            assertEntries(intact, readAll(journal));
            // A tail zeroed whole looks exactly like records never written: nothing to report.
            assertEquals(leavesBytes ? written.get(firstLost).position() : -1, journal.droppedTailPosition());
            final byte[] next = payload(1000);
            final long position = journal.append(new UnsafeBuffer(next), 0, next.length);
            assertEquals(written.get(firstLost).position(), position, "append resumes after the intact prefix");
        }
        try (Journal journal = open(image))
        {
            final List<Entry> all = new ArrayList<>(intact);
            all.add(new Entry(written.get(firstLost).position(), payload(1000)));
            assertEntries(all, readAll(journal));
            assertEquals(-1, journal.droppedTailPosition(), "the dropped tail was cleared, the journal is intact");
        }
    }

    /**
     * 40 records written (several segments) and the journal closed cleanly.
     */
    private Closed closedJournalOf40Records()
    {
        try (Journal journal = open())
        {
            return new Closed(appendRecords(journal, 0, 40), journal.segmentFiles().get(journal.segmentCount() - 1));
        }
    }

    record Closed(List<Entry> written, Path lastSegment)
    {
    }

    /**
     * What a crash of the process would leave on disk now: a copy of the journal's files, taken while it is open (the
     * copy reads the mapped pages), in a directory of its own.
     */
    private Path crashImage() throws IOException
    {
        final Path image = Files.createDirectories(dir.resolve("crash-image-" + System.nanoTime()));
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path file : files.filter(Files::isRegularFile).toList())
            {
                Files.copy(file, image.resolve(file.getFileName()));
            }
        }
        return image;
    }

    private static Journal open(final Path directory)
    {
        return Journal.open(new Journal.Context().directory(directory).segmentSize(SEGMENT));
    }

    @FunctionalInterface
    interface TailDamage
    {
        void apply(Path lastSegment, List<Entry> written) throws IOException;
    }

    @Test
    void aLastSegmentCutMidRecordOrAtARecordBoundaryIsRefused() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        final Path copy = dir.resolve("last.copy");
        Files.copy(last, copy);
        for (final long cut : new long[] {offsetIn(last, written.get(39).position()) + 11,
            offsetIn(last, written.get(37).position())})
        {
            try (FileChannel channel = FileChannel.open(last, StandardOpenOption.WRITE))
            {
                channel.truncate(cut);
            }
            assertCorrupt(last, cut, "cut short");
            Files.copy(copy, last, StandardCopyOption.REPLACE_EXISTING);
        }
        try (Journal journal = open())
        {
            assertEntries(written, readAll(journal));
        }
    }

    @Test
    void acknowledgedRecordsZeroedInPlaceAreRefused() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        // A clean close acknowledged everything: the zeroed records cannot be a crash's torn tail.
        final long from = offsetIn(last, written.get(37).position());
        fill(last, from, SEGMENT, (byte) 0);
        assertCorrupt(last, from, "acknowledged records are lost");
    }

    @Test
    void deletingTheNewestSegmentIsRefusedNamingIt() throws IOException
    {
        final List<Path> segments;
        try (Journal journal = open())
        {
            appendRecords(journal, 0, 80);
            segments = journal.segmentFiles();
        }
        assertTrue(segments.size() >= 3, "segments: " + segments.size());
        final Path newest = segments.get(segments.size() - 1);
        final byte[] saved = Files.readAllBytes(newest);
        Files.delete(newest);
        assertCorrupt(newest, 0, "segment file is missing");
        // Losing the last two: the one left last is sealed too.
        final Path secondNewest = segments.get(segments.size() - 2);
        final byte[] savedSecond = Files.readAllBytes(secondNewest);
        Files.delete(secondNewest);
        assertCorrupt(secondNewest, 0, "segment file is missing");
        Files.write(secondNewest, savedSecond);
        Files.write(newest, saved);
        try (Journal journal = open())
        {
            assertEquals(80, readAll(journal).size());
        }
    }

    @Test
    void deletingTheOnlySegmentIsRefused() throws IOException
    {
        final Path only;
        try (Journal journal = open())
        {
            appendRecords(journal, 0, 3);
            assertEquals(1, journal.segmentCount());
            only = journal.segmentFiles().get(0);
        }
        Files.delete(only);
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, this::open);
        assertTrue(ex.getMessage().contains("every segment file is missing"), ex.getMessage());
        assertEquals(liveMappingsBefore, MappedRegion.liveMappings());
    }

    @Test
    void aCrashTearsOnlyWhatNoForceHadMadeDurable() throws IOException
    {
        final List<Entry> written = new ArrayList<>();
        final Path image;
        try (Journal journal = open())
        {
            written.addAll(appendRecords(journal, 0, 4));
            journal.force();
            written.addAll(appendRecords(journal, 4, 4));
            journal.force();
            written.addAll(appendRecords(journal, 8, 2));
            assertEquals(1, journal.segmentCount(), "test setup: one segment");
            image = crashImage();
        }
        final Path segment = image.resolve(JournalFormat.segmentFileName(0));
        final byte[] saved = Files.readAllBytes(segment);
        // Records 8..9 were appended after the last force: losing them is a torn tail.
        fill(segment, written.get(8).position(), SEGMENT, (byte) 0);
        try (Journal journal = open(image))
        {
            assertEntries(written.subList(0, 8), readAll(journal));
        }
        // Records 4..7 were made durable by the last force, and its checkpoint (written once they were) covers
        // them: losing them is refused, not read as a torn tail.
        Files.write(segment, saved);
        fill(segment, written.get(4).position(), SEGMENT, (byte) 0);
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, () -> open(image));
        assertEquals(segment, ex.segment());
        assertTrue(ex.getMessage().contains("acknowledged records are lost"), ex.getMessage());
    }

    @Test
    void aJournalWrittenBeforeCheckpointsStillOpens() throws IOException
    {
        final List<Entry> written;
        final List<Path> segments;
        try (Journal journal = open())
        {
            written = appendRecords(journal, 0, 40);
            segments = journal.segmentFiles();
        }
        for (final Path segment : segments)
        {
            fill(segment, JournalFormat.CHECKPOINT_OFFSET, JournalFormat.HEADER_LENGTH, (byte) 0);
        }
        Files.write(dir.resolve("journal.lock"), new byte[0]);
        try (Journal journal = open())
        {
            assertEntries(written, readAll(journal));
        }
        xorByte(segments.get(0), JournalFormat.CHECKPOINT_OFFSET, 0x01);
        assertCorrupt(segments.get(0), JournalFormat.CHECKPOINT_OFFSET, "checkpoint checksum");
    }

    @Test
    void aTailTornMidRecordIsDropped() throws IOException
    {
        assertTailDropped(39, (segment, written) ->
            fill(segment, offsetIn(segment, written.get(39).position()) + 9, SEGMENT, (byte) 0));
    }

    @Test
    void aFlippedByteInTheLastRecordsPayloadDropsIt() throws IOException
    {
        assertTailDropped(39, (segment, written) ->
            xorByte(segment, offsetIn(segment, written.get(39).position()) + JournalFormat.FRAME_HEADER_LENGTH + 3,
                0x01));
    }

    @Test
    void aFlippedLengthOfTheLastRecordDropsIt() throws IOException
    {
        assertTailDropped(39, (segment, written) ->
            xorByte(segment, offsetIn(segment, written.get(39).position()) + JournalFormat.LENGTH_FIELD_OFFSET, 0x10));
    }

    @Test
    void aFlippedChecksumOfTheLastRecordDropsIt() throws IOException
    {
        assertTailDropped(39, (segment, written) ->
            xorByte(segment, offsetIn(segment, written.get(39).position()), 0x80));
    }

    @Test
    void aZeroedTailOfSeveralRecordsIsDropped() throws IOException
    {
        assertTailDropped(37, false, (segment, written) ->
            fill(segment, offsetIn(segment, written.get(37).position()), SEGMENT, (byte) 0));
    }

    @Test
    void garbageAfterTheLastRecordIsIgnoredAndCleared() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        final long end = offsetIn(last, written.get(39).position()) + JournalFormat.alignedFrameLength(
            JournalFormat.FRAME_HEADER_LENGTH + written.get(39).payload().length);
        fill(last, end + 4, end + 200, (byte) 0x3C);
        try (Journal journal = open())
        {
            assertEntries(written, readAll(journal));
            appendRecords(journal, 40, 1);
        }
        try (Journal journal = open())
        {
            assertEquals(41, readAll(journal).size());
        }
    }

    @Test
    void aBadRecordFollowedByValidOnesIsCorruptionNamingSegmentAndOffset() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        final long victim = written.get(37).position();
        assertEquals(last, segmentOf(List.of(last), victim));
        xorByte(last, offsetIn(last, victim) + JournalFormat.FRAME_HEADER_LENGTH, 0x04);
        assertCorrupt(last, offsetIn(last, victim), "valid record follows");
    }

    @Test
    void aFlippedLengthFollowedByValidRecordsIsCorruption() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        final long victim = written.get(36).position();
        xorByte(last, offsetIn(last, victim) + JournalFormat.LENGTH_FIELD_OFFSET + 1, 0x7F);
        assertCorrupt(last, offsetIn(last, victim), "valid record follows");
    }

    @Test
    void aZeroedHoleBeforeValidRecordsIsCorruption() throws IOException
    {
        final Closed closed = closedJournalOf40Records();
        final List<Entry> written = closed.written();
        final Path last = closed.lastSegment();
        final long victim = offsetIn(last, written.get(36).position());
        fill(last, victim, victim + JournalFormat.FRAME_HEADER_LENGTH, (byte) 0);
        assertCorrupt(last, victim, "end-of-data marker");
    }

    @Test
    void damageInAnEarlierSegmentIsCorruptionEvenAtItsTail() throws IOException
    {
        final List<Entry> written;
        final Path first;
        try (Journal journal = open())
        {
            written = appendRecords(journal, 0, 40);
            first = journal.segmentFiles().get(0);
        }
        Entry lastInFirst = null;
        for (final Entry entry : written)
        {
            if (entry.position() < SEGMENT)
            {
                lastInFirst = entry;
            }
        }
        xorByte(first, lastInFirst.position() + JournalFormat.FRAME_HEADER_LENGTH, 0x01);
        assertCorrupt(first, lastInFirst.position(), "not the last");
    }

    @Test
    void aDamagedHeaderOrAMissingSegmentIsCorruption() throws IOException
    {
        final List<Path> segments;
        try (Journal journal = open())
        {
            appendRecords(journal, 0, 80);
            segments = journal.segmentFiles();
        }
        assertTrue(segments.size() >= 3);
        xorByte(segments.get(0), JournalFormat.CAPACITY_OFFSET, 0x01);
        assertCorrupt(segments.get(0), JournalFormat.HEADER_CRC_OFFSET, "header checksum");
        xorByte(segments.get(0), JournalFormat.CAPACITY_OFFSET, 0x01);
        try (Journal journal = open())
        {
            assertEquals(80, readAll(journal).size());
        }

        Files.delete(segments.get(1));
        assertCorrupt(segments.get(2), 0, "missing");
    }

    @Test
    void leftoverTempSegmentsAreDeletedOnOpen() throws IOException
    {
        try (Journal journal = open())
        {
            appendRecords(journal, 0, 3);
        }
        final Path temp = dir.resolve(JournalFormat.segmentFileName(SEGMENT) + ".tmp");
        Files.write(temp, new byte[100]);
        try (Journal journal = open())
        {
            assertFalse(Files.exists(temp));
            assertEquals(3, readAll(journal).size());
        }
    }

    private void assertCorrupt(final Path segment, final long offset, final String reasonPart)
    {
        final JournalCorruptException ex = assertThrows(JournalCorruptException.class, this::open);
        assertEquals(segment, ex.segment());
        assertEquals(offset, ex.offset());
        assertTrue(ex.getMessage().contains(segment.toString()) && ex.getMessage().contains("offset " + offset) &&
            ex.getMessage().contains(reasonPart), ex.getMessage());
        assertEquals(liveMappingsBefore, MappedRegion.liveMappings(), "a failed open must unmap what it mapped");
    }
}
