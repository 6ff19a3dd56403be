package dev.offcache.hadoop.fs;

import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What starting the adapter does to the rest of the JVM. Run in a class loader of its own over the test class path
 * (MapReduce's {@code JobConf} on it, as in an engine), because Hadoop's default configuration resources are
 * JVM-wide: any other test that ran {@code FileSystem.get} first would have loaded {@code JobConf} already.
 */
class WrappedFileSystemSideEffectsTest
{
    @Test
    void initializeAddsNoDefaultResourcesToTheJvmsConfigurations() throws Exception
    {
        final ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(testClassPath(), ClassLoader.getPlatformClassLoader()))
        {
            Thread.currentThread().setContextClassLoader(loader);
            final Class<?> configuration = loader.loadClass("org.apache.hadoop.conf.Configuration");
            assertTrue(loader.getResource("mapred-default.xml") != null, "MapReduce is on the test class path");
            final String before = configuration.getConstructor().newInstance().toString();
            final Object conf = configuration.getConstructor(boolean.class).newInstance(false);
            configuration.getMethod("set", String.class, String.class)
                .invoke(conf, "offcache.fs.file.impl", "org.apache.hadoop.fs.RawLocalFileSystem");
            configuration.getMethod("set", String.class, String.class).invoke(conf, "offcache.l1.mb", "1");
            final Class<?> adapter = loader.loadClass(OffcacheFileSystem.class.getName());
            final Object fs = adapter.getConstructor().newInstance();
            try
            {
                adapter.getMethod("initialize", URI.class, configuration).invoke(fs, URI.create("file:///"), conf);
                final String after = configuration.getConstructor().newInstance().toString();
                assertFalse(after.contains("mapred-default.xml"), after);
                assertEquals(before, after);
            }
            finally
            {
                adapter.getMethod("close").invoke(fs);
                loader.loadClass("dev.offcache.embed.JvmCaches").getMethod("closeAll").invoke(null);
            }
        }
        finally
        {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    /** The test JVM's class path (Surefire's manifest-only jar names the rest in its {@code Class-Path}). */
    private static URL[] testClassPath() throws Exception
    {
        final List<URL> urls = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            if (!entry.isEmpty())
            {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }
}
