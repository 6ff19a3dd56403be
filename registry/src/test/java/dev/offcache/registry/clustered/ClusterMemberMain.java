package dev.offcache.registry.clustered;

import java.io.File;

/**
 * A registry cluster member in its own JVM, for the kill -9 test: args {@code memberId memberDir portBase aeronDir};
 * prints {@code READY}, then {@code APPLIED <n> <role>} whenever the applied count or role changes; exits when its
 * stdin closes (the test died) or when killed.
 */
public final class ClusterMemberMain
{
    private ClusterMemberMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int memberId = Integer.parseInt(args[0]);
        try (RegistryClusterMember member = RegistryClusterMember.launch(new RegistryClusterMember.Context()
            .memberId(memberId)
            .hosts(ClusterFixture.HOSTS)
            .memberDir(new File(args[1]))
            .portBase(Integer.parseInt(args[2]))
            .aeronDirectoryName(args[3])
            .logTermLength(1 << 20)
            .ingressTermLength(256 * 1024)))
        {
            System.out.println("READY");
            System.out.flush();
            final Thread stdinWatch = new Thread(() ->
            {
                try
                {
                    while (System.in.read() >= 0)
                    {
                        Thread.onSpinWait();
                    }
                }
                catch (final Exception ignored)
                {
                    // parent gone
                }
            });
            stdinWatch.setDaemon(true);
            stdinWatch.start();
            String last = "";
            while (stdinWatch.isAlive())
            {
                final String now = "APPLIED " + member.service().appliedCommands() + " " + member.service().role();
                if (!now.equals(last))
                {
                    System.out.println(now);
                    System.out.flush();
                    last = now;
                }
                Thread.sleep(20);
            }
        }
    }
}
