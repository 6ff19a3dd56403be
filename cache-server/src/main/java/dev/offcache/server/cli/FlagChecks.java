package dev.offcache.server.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.offcache.range.config.InvalidSettingException;
import dev.offcache.server.http.ApiKeys;
import dev.offcache.server.s3.S3Buckets;
import dev.offcache.server.s3.S3Credentials;
import picocli.CommandLine;

/**
 * The checks of {@code offcache-server}'s flags that a single option cannot make alone: the sizes and limits each
 * component checks in its own {@code Context} or builder (an error names the setting, mapped back to its flag), the
 * origin flags that exclude or need each other, the S3 API's flags, and the variables no flag reads. Runs before
 * anything is made, so a refused start leaves nothing behind; each refusal is a {@link CommandLine.ParameterException}
 * naming the flag and its environment variable.
 */
final class FlagChecks
{
    /** Variables the launcher script reads, not the program. */
    private static final List<String> LAUNCHER_VARIABLES =
        List.of("OFFCACHE_JAVA_OPTS", "OFFCACHE_HEAP_MB", "OFFCACHE_YOUNG_MB", "OFFCACHE_DIRECT_MB");

    private final OffcacheServerCommand command;
    private final EnvironmentDefaults defaults;
    private final Map<String, String> env;

    FlagChecks(final OffcacheServerCommand command, final EnvironmentDefaults defaults, final Map<String, String> env)
    {
        this.command = command;
        this.defaults = defaults;
        this.env = env;
    }

    /** Refuses the first flag whose value is wrong alone or with the others; nothing is made before this passes. */
    void validate()
    {
        final String configProblem = defaults.configProblem(command.spec.options());
        if (null != configProblem)
        {
            throw invalid(EnvironmentDefaults.CONFIG, configProblem);
        }
        if (null != command.config && !command.config.equals(defaults.configFile()))
        {
            throw invalid(EnvironmentDefaults.CONFIG, "is read before the command line is parsed: start through " +
                "OffcacheServerCommand.main or commandLine(env, configFile)");
        }
        command.listenHost();
        command.listenPort();
        // Each component checks its own settings (bounds live once, in its Context or builder), before anything
        // is made; an error names the setting, mapped back to the flag it came from.
        checkSettings(() -> ServerProgram.engineBuilder(command).validate(), OffcacheServerCommand.ENGINE_FLAGS);
        checkSettings(() -> ServerProgram.storeContext(command).validate(), OffcacheServerCommand.STORE_FLAGS);
        checkSettings(() -> ServerProgram.serverContext(command).validate(
            ServerProgram.kibibytes(command.blockSizeKb)), OffcacheServerCommand.SERVER_FLAGS);
        positive("--fetch-threads", command.fetchThreads);
        validateS3();
        validateHttpOrigin();
        validateBucketDirs();
        validateS3Api();
        if (null != command.apiKeys && !command.apiKeys.isBlank())
        {
            try
            {
                ApiKeys.parse(command.apiKeys);
            }
            catch (final IllegalArgumentException ex)
            {
                throw invalid("--api-keys", ex.getMessage());
            }
        }
    }

    /**
     * Names every {@code OFFCACHE_*} variable no option reads (a typo, or an engine-process setting such as
     * {@code OFFCACHE_L1_MB} that a server has no use for), so a setting is never silently ignored.
     */
    void warnAboutUnknownVariables()
    {
        final List<String> known = new ArrayList<>();
        for (final CommandLine.Model.OptionSpec option : command.spec.options())
        {
            known.add(EnvironmentDefaults.variableOf(option));
        }
        final List<String> unknown = new ArrayList<>();
        for (final String name : env.keySet())
        {
            if (name.startsWith("OFFCACHE_") && !known.contains(name) && !LAUNCHER_VARIABLES.contains(name))
            {
                unknown.add(name);
            }
        }
        if (!unknown.isEmpty())
        {
            unknown.sort(null);
            final PrintWriter err = command.spec.commandLine().getErr();
            err.println("offcache-server: ignoring " + String.join(", ", unknown) +
                ": no server option reads them (see --help)");
            err.flush();
        }
    }

    private void validateS3()
    {
        final boolean anyS3 = null != command.s3Endpoint || null != command.s3AccessKey || null != command.s3SecretKey;
        if (null == command.s3Bucket)
        {
            if (anyS3)
            {
                throw invalid("--s3-bucket", "is required with --s3-endpoint and the S3 keys");
            }
            return;
        }
        final List<String> seen = new ArrayList<>();
        for (final String bucket : command.s3Bucket.split(",", -1))
        {
            final String name = bucket.trim();
            if (!S3Buckets.isValidName(name))
            {
                throw invalid("--s3-bucket", "is not a valid bucket name: '" + name + "'");
            }
            if (seen.contains(name))
            {
                throw invalid("--s3-bucket", "names bucket '" + name + "' twice");
            }
            seen.add(name);
        }
        if (null != command.originDir)
        {
            throw invalid("--s3-bucket", "cannot be combined with --origin-dir: choose one origin");
        }
        if (null == command.s3Endpoint)
        {
            throw invalid("--s3-endpoint", "is required with --s3-bucket");
        }
        command.s3EndpointUri();
        if (null == command.s3Region || command.s3Region.isBlank())
        {
            throw invalid("--s3-region", "must not be empty");
        }
        // both keys, or neither (then the AWS SDK's default credential chain: environment, profile, role)
        if ((null == command.s3AccessKey) != (null == command.s3SecretKey))
        {
            throw invalid(null == command.s3AccessKey ? "--s3-access-key" : "--s3-secret-key",
                "is required with " + (null == command.s3AccessKey ? "--s3-secret-key" : "--s3-access-key") +
                " (or leave both out to use the default AWS credential chain)");
        }
        if (null != command.s3AccessKey && (command.s3AccessKey.isBlank() || command.s3SecretKey.isBlank()))
        {
            throw invalid(command.s3AccessKey.isBlank() ? "--s3-access-key" : "--s3-secret-key", "must not be empty");
        }
    }

    private void validateHttpOrigin()
    {
        if (null == command.httpOrigin)
        {
            return;
        }
        if (null != command.originDir || null != command.s3Bucket || null != command.bucketDirs)
        {
            throw invalid("--http-origin", "cannot be combined with --origin-dir, --s3-bucket or --bucket-dirs: " +
                "choose one origin");
        }
        command.httpOriginUri();
    }

    /** NAME=DIR pairs: valid distinct bucket names, none also in --s3-bucket, a directory each, no --origin-dir. */
    private void validateBucketDirs()
    {
        if (null == command.bucketDirs)
        {
            return;
        }
        if (null != command.originDir)
        {
            throw invalid("--bucket-dirs", "cannot be combined with --origin-dir (name that directory as a bucket " +
                "here instead)");
        }
        final List<String> s3Names = null == command.s3Bucket ? List.of() : command.s3Buckets();
        final List<String> seen = new ArrayList<>();
        for (final String entry : command.bucketDirs.split(",", -1))
        {
            final int equals = entry.indexOf('=');
            if (equals < 0 || entry.substring(equals + 1).isBlank())
            {
                throw invalid("--bucket-dirs", "must be NAME=DIR[,NAME=DIR...], was '" + entry.trim() + "'");
            }
            final String name = entry.substring(0, equals).trim();
            if (!S3Buckets.isValidName(name))
            {
                throw invalid("--bucket-dirs", "is not a valid bucket name: '" + name + "'");
            }
            if (seen.contains(name) || s3Names.contains(name))
            {
                throw invalid("--bucket-dirs", "bucket '" + name + "' is mapped twice" + (s3Names.contains(name) ?
                    " (also in --s3-bucket)" : ""));
            }
            seen.add(name);
        }
    }

    private void validateS3Api()
    {
        if (!command.s3ApiEnabled())
        {
            for (final String[] flag : new String[][] {{"--s3-api-keys", command.s3ApiKeys},
                {"--s3-api-bucket", command.s3ApiBucket}, {"--s3-api-domain", command.s3ApiDomain},
                {"--s3-api-region", command.s3ApiRegion}})
            {
                if (null != flag[1])
                {
                    throw invalid(flag[0], "needs --s3-api-listen (the S3 API is off without it)");
                }
            }
            return;
        }
        final int port = command.s3ApiPort();
        if (port != 0 && port == command.listenPort() && command.s3ApiHost().equals(command.listenHost()))
        {
            throw invalid("--s3-api-listen", "must differ from --listen (" + command.listen + "): the S3 API has a " +
                "listener of its own");
        }
        if (null != command.s3ApiKeys)
        {
            try
            {
                S3Credentials.parse(command.s3ApiKeys);
            }
            catch (final IllegalArgumentException ex)
            {
                throw invalid("--s3-api-keys", ex.getMessage());
            }
        }
        else if (!command.disableAuth && !command.isEmbedded())
        {
            throw invalid("--s3-api-keys", "no S3 API keys: set OFFCACHE_S3_API_KEYS to ID:SECRET, or pass " +
                "--disable-auth");
        }
        if (null != command.s3ApiBucket && (null != command.bucketDirs || command.s3Buckets().size() > 1))
        {
            throw invalid("--s3-api-bucket", "names the one bucket of --origin-dir, --http-origin or a single " +
                "--s3-bucket; --bucket-dirs and several --s3-bucket buckets are served under their own names");
        }
        if (!S3Buckets.isValidName(command.s3ApiBucketName()))
        {
            throw invalid("--s3-api-bucket", "is not a valid bucket name: '" + command.s3ApiBucketName() + "'");
        }
        if (null != command.s3ApiDomain &&
            !command.s3ApiDomain.matches("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?"))
        {
            throw invalid("--s3-api-domain", "is not a domain name: '" + command.s3ApiDomain + "'");
        }
        if (!command.s3ApiRegionName().matches("[a-z0-9][a-z0-9-]{0,63}"))
        {
            throw invalid("--s3-api-region", "is not a region name: '" + command.s3ApiRegionName() + "'");
        }
    }

    /**
     * Runs a component's own check of the settings the flags gave it; its error names the setting, which is mapped
     * back to the flag it came from (a setting no flag sets is a bug here, and stays an exception).
     */
    private void checkSettings(final Runnable check, final Map<String, String> flagOfSetting)
    {
        try
        {
            check.run();
        }
        catch (final InvalidSettingException ex)
        {
            final String flag = flagOfSetting.get(ex.setting());
            if (null == flag)
            {
                throw ex;
            }
            throw invalid(flag, ex.getMessage());
        }
    }

    private void positive(final String flag, final long value)
    {
        if (value < 1)
        {
            throw invalid(flag, "must be >= 1, was " + value);
        }
    }

    private CommandLine.ParameterException invalid(final String flag, final String problem)
    {
        return command.invalid(flag, problem);
    }
}
