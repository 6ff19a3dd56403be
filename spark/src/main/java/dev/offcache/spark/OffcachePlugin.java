package dev.offcache.spark;

import java.util.Map;

import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerApplicationEnd;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * offcache's Spark plugin ({@code spark.plugins=dev.offcache.spark.OffcachePlugin}): the driver part starts the
 * {@link OffcacheDriver} and listens for executor loss and the application's end; the executor part starts an
 * {@link OffcacheExecutor}. Neither lets an exception out of {@code init}: a broken offcache (no media driver, a full
 * disk) is logged once with what is missing, and cached datasets are then computed from their lineage.
 */
public final class OffcachePlugin implements SparkPlugin
{
    private static final Logger LOG = LoggerFactory.getLogger(OffcachePlugin.class);

    @Override
    public DriverPlugin driverPlugin()
    {
        return new Driver();
    }

    @Override
    public ExecutorPlugin executorPlugin()
    {
        return new Executor();
    }

    /** The driver part. */
    static final class Driver implements DriverPlugin
    {
        private OffcacheDriver driver;

        @Override
        public Map<String, String> init(final SparkContext sc, final PluginContext pluginContext)
        {
            try
            {
                driver = OffcacheDriver.start(sc, new OffcacheSettings(sc.conf()));
                sc.addSparkListener(new Listener(driver));
                sc.addSparkListener(driver.losingAttempts());
            }
            catch (final Throwable ex)
            {
                LOG.error("offcache driver did not start; cached datasets will be computed from their lineage", ex);
            }
            return Map.of();
        }

        @Override
        public Object receive(final Object message)
        {
            return driver == null ? null : driver.receive(message);
        }

        @Override
        public void shutdown()
        {
            if (driver != null)
            {
                driver.close();
            }
        }
    }

    /** The executor part. */
    static final class Executor implements ExecutorPlugin
    {
        private OffcacheExecutor executor;

        @Override
        public void init(final PluginContext ctx, final Map<String, String> extraConf)
        {
            // An exception here kills the executor, and a standalone worker relaunches it forever: catch everything.
            try
            {
                executor = OffcacheExecutor.start(ctx, new OffcacheSettings(ctx.conf()));
            }
            catch (final Throwable ex)
            {
                LOG.error("offcache executor {} did not start (check /dev/shm space for the Aeron media driver, the " +
                    "executor directory and the JVM flag --add-opens java.base/jdk.internal.misc=ALL-UNNAMED); " +
                    "its tasks compute cached datasets from their lineage", ctx.executorID(), ex);
                reportUnavailable(ctx, new Messages.Unavailable(ctx.executorID(), String.valueOf(ex)));
            }
        }

        /** Tells the driver, whose log the user reads first, and which then runs no job that cannot succeed. */
        private static void reportUnavailable(final PluginContext ctx, final Messages.Unavailable unavailable)
        {
            try
            {
                final OffcacheDriver driver = OffcacheDriver.current();
                if (driver != null && OffcacheExecutor.LOCAL_EXECUTOR_ID.equals(unavailable.executorId()))
                {
                    driver.executorUnavailable(unavailable);
                }
                else
                {
                    ctx.send(unavailable);
                }
            }
            catch (final Throwable ex)
            {
                LOG.warn("offcache executor {} could not tell the driver it did not start: {}",
                    unavailable.executorId(), ex.toString());
            }
        }

        @Override
        public void shutdown()
        {
            if (executor != null)
            {
                executor.close();
            }
        }
    }

    /** Executor loss and the application's end, from Spark's listener bus. */
    static final class Listener extends SparkListener
    {
        private final OffcacheDriver driver;

        Listener(final OffcacheDriver driver)
        {
            this.driver = driver;
        }

        @Override
        public void onExecutorRemoved(final SparkListenerExecutorRemoved removed)
        {
            driver.executorLost(removed.executorId(), removed.reason());
        }

        @Override
        public void onApplicationEnd(final SparkListenerApplicationEnd end)
        {
            driver.applicationEnded();
        }
    }
}
