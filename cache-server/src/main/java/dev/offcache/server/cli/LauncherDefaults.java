package dev.offcache.server.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.offcache.server.tier.TieredBlockStore;

/**
 * Build step, not part of the server: writes the program's defaults into the generated launcher
 * ({@code target/bin/offcache-server}, run by the build at process-classes), so the launcher sizes direct memory
 * from the same RAM-tier default the program uses and never re-states it.
 */
final class LauncherDefaults
{
    /** The launcher's placeholder for the RAM tier's default in MiB. */
    static final String RAM_MB_TOKEN = "@offcache.ram.mb.default@";

    private LauncherDefaults()
    {
    }

    /**
     * Replaces the placeholders in a launcher, in place (its file mode is kept).
     *
     * @param args the launcher's path.
     * @throws IOException if it cannot be read or written.
     */
    public static void main(final String[] args) throws IOException
    {
        final Path launcher = Path.of(args[0]);
        final String text = Files.readString(launcher, StandardCharsets.UTF_8);
        if (!text.contains(RAM_MB_TOKEN))
        {
            throw new IllegalStateException(launcher + " has no " + RAM_MB_TOKEN);
        }
        Files.writeString(launcher, text.replace(RAM_MB_TOKEN,
            Long.toString(TieredBlockStore.Context.DEFAULT_RAM_CAPACITY_BYTES >> 20)), StandardCharsets.UTF_8);
    }
}
