package offtrace;

import java.lang.instrument.Instrumentation;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.matcher.ElementMatchers;

/** premain: enter-advice on every method and constructor of dev.offcache classes. */
public final class Agent
{
    public static void premain(final String args, final Instrumentation inst)
    {
        new AgentBuilder.Default()
            .disableClassFormatChanges()
            .with(new AgentBuilder.Listener.Adapter()
            {
                @Override
                public void onError(final String name, final ClassLoader loader, final net.bytebuddy.utility.JavaModule module,
                    final boolean loaded, final Throwable error)
                {
                    System.err.println("offtrace: " + name + ": " + error);
                }
            })
            .type(ElementMatchers.nameStartsWith("dev.offcache."))
            .transform((builder, type, loader, module, domain) -> builder.visit(Advice.to(Enter.class)
                .on(ElementMatchers.isMethod().or(ElementMatchers.isConstructor())
                    .and(ElementMatchers.not(ElementMatchers.isAbstract()))
                    .and(ElementMatchers.not(ElementMatchers.isNative())))))
            .installOn(inst);
    }

    public static final class Enter
    {
        @Advice.OnMethodEnter
        static void enter(@Advice.Origin("#t") final String type, @Advice.Origin("#m") final String method)
        {
            Trace.enter(type, method);
        }
    }
}
