package dev.offcache.perf.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import dev.offcache.perf.measure.MeasurementFile;
import dev.offcache.perf.measure.MeasurementFileReader;

/**
 * The measurement files a report takes in: those named with {@code --measurements} and those already in a report
 * directory's {@value #DIR}/ folder. A report directory keeps copies of its measurement files there, so it is
 * complete on its own: it can be rendered again and compared with the next one.
 */
final class MeasurementInputs
{
    /** The folder of a report directory that holds its measurement files. */
    static final String DIR = "measurements";

    private MeasurementInputs()
    {
    }

    /**
     * Reads the measurement files of a report directory ({@value #DIR}/*.json), if there are any.
     *
     * @param reportDir a report directory.
     * @return the files' paths, sorted by name; empty when there is no such folder.
     * @throws IOException when the folder cannot be listed.
     */
    static List<Path> in(final Path reportDir) throws IOException
    {
        final Path dir = reportDir.resolve(DIR);
        final TreeSet<Path> files = new TreeSet<>();
        if (Files.isDirectory(dir))
        {
            try (DirectoryStream<Path> json = Files.newDirectoryStream(dir, "*.json"))
            {
                json.forEach(files::add);
            }
        }
        return new ArrayList<>(files);
    }

    /**
     * Reads and checks files (each must be valid, and no suite may appear twice), before any long work starts.
     *
     * @param files the files.
     * @return the files read, in order; the same file named twice is read once.
     * @throws dev.offcache.perf.jmh.ResultFileException when a file is unusable.
     * @throws IllegalArgumentException when two files hold the same suite.
     */
    static List<MeasurementFile> read(final List<Path> files)
    {
        final Map<Path, MeasurementFile> read = new LinkedHashMap<>();
        final Map<String, Path> suites = new HashMap<>();
        for (final Path file : files)
        {
            final Path key = file.toAbsolutePath().normalize();
            if (read.containsKey(key))
            {
                continue;
            }
            final MeasurementFile measurements = MeasurementFileReader.read(file);
            final Path other = suites.putIfAbsent(measurements.suite(), file);
            if (other != null)
            {
                throw new IllegalArgumentException("measurement files " + other + " and " + file + " both hold suite " +
                    measurements.suite());
            }
            read.put(key, measurements);
        }
        return new ArrayList<>(read.values());
    }

    /**
     * Copies files into a report directory's {@value #DIR}/ folder (a file already there stays) and reads the
     * copies, so the report names the files it was written from.
     *
     * @param files     files read by {@link #read(List)}.
     * @param reportDir the report directory.
     * @return the copies, read.
     * @throws IOException when a copy fails.
     */
    static List<MeasurementFile> copyInto(final List<MeasurementFile> files, final Path reportDir) throws IOException
    {
        if (files.isEmpty())
        {
            return List.of();
        }
        final Path dir = Files.createDirectories(reportDir.resolve(DIR));
        final Map<String, Path> names = new HashMap<>();
        final List<MeasurementFile> copies = new ArrayList<>();
        for (final MeasurementFile file : files)
        {
            final String name = file.source().getFileName().toString();
            final Path other = names.putIfAbsent(name, file.source());
            if (other != null)
            {
                throw new IllegalArgumentException("two measurement files are named " + name + " (" + other + ", " +
                    file.source() + "): rename one");
            }
            final Path target = dir.resolve(name);
            if (!Files.exists(target) || !Files.isSameFile(target, file.source()))
            {
                Files.copy(file.source(), target, StandardCopyOption.REPLACE_EXISTING);
            }
            copies.add(MeasurementFileReader.read(target));
        }
        return copies;
    }
}
