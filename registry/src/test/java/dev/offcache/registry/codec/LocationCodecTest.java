package dev.offcache.registry.codec;

import java.util.List;

import org.agrona.ExpandableArrayBuffer;
import org.junit.jupiter.api.Test;

import dev.offcache.registry.state.PartitionLocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Location lists round-trip with their CRCs (and without one), lists written before CRCs were recorded still read
 * (without), and a reader of the old format refuses the new one as an implausible count instead of misreading it.
 */
class LocationCodecTest
{
    private static final List<PartitionLocation> LOCATIONS = List.of(
        new PartitionLocation("exec-0", "job-1", 1, 0, "/w/exec-0/job-1/1/0.data", 4096, 0xFFFF_FFFFL),
        new PartitionLocation("exec-1", "job-1", 1, 1, "/w/exec-1/job-1/1/1.data", 0, 0),
        new PartitionLocation("exec-2", "job-1", 1, 2, "/w/ünïcode/1/2.data", 17, PartitionLocation.NO_CRC));

    @Test
    void locationsRoundTripWithTheirCrcs()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(16);
        final int length = LocationCodec.encode(buffer, 3, LOCATIONS);
        long bound = LocationCodec.HEADER_BYTES;
        for (final PartitionLocation location : LOCATIONS)
        {
            bound += LocationCodec.maxBytes(location);
        }
        assertTrue(length <= bound, length + " > " + bound);
        final FieldReader reader = new FieldReader().wrap(buffer, 3, length);
        assertEquals(LOCATIONS, LocationCodec.decode(reader));
        assertEquals(0, reader.remaining());
        assertTrue(LOCATIONS.get(0).hasCrc());
        assertFalse(LOCATIONS.get(2).hasCrc());
    }

    @Test
    void aListWrittenBeforeCrcsWereRecordedReadsWithoutThem()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(16);
        final int length = LegacyLocations.encode(buffer, LOCATIONS);
        final List<PartitionLocation> decoded = LocationCodec.decode(new FieldReader().wrap(buffer, 0, length));
        assertEquals(LOCATIONS.size(), decoded.size());
        for (int i = 0; i < LOCATIONS.size(); i++)
        {
            final PartitionLocation expected = LOCATIONS.get(i);
            assertEquals(new PartitionLocation(expected.executorId(), expected.jobId(), expected.stageId(),
                expected.partitionId(), expected.path(), expected.length()), decoded.get(i));
            assertEquals(PartitionLocation.NO_CRC, decoded.get(i).crc32c());
        }
    }

    @Test
    void theOldFormatsReaderRefusesTheNewFormat()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(16);
        final int length = LocationCodec.encode(buffer, 0, LOCATIONS);
        // What the previous version did first: read the count.
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class,
            () -> new FieldReader().wrap(buffer, 0, length).count());
        assertTrue(ex.getMessage().contains("implausible count " + LocationCodec.WITH_CRC), ex.getMessage());
    }

    @Test
    void badCrcsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new PartitionLocation("e", "j", 0, 0, "/p", 1, -2));
        assertThrows(IllegalArgumentException.class,
            () -> new PartitionLocation("e", "j", 0, 0, "/p", 1, 0x1_0000_0000L));
    }
}
