package dev.distlock.testing;

import dev.distlock.Locked;
import dev.distlock.ReadLocked;
import dev.distlock.WriteLocked;
import dev.distlock.internal.cdi.DistlockBuildExtension;
import dev.distlock.internal.cdi.LockedInterceptor;
import dev.distlock.internal.cdi.ReadLockedInterceptor;
import dev.distlock.internal.cdi.WriteLockedInterceptor;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.ClassConfig;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.declarations.ClassInfo;

/**
 * distlock's build compatible extension as a CDI Lite runtime runs it, for Weld: Weld, a full
 * runtime, skips every build compatible extension marked to give way to a portable one, so this
 * copy carries no such mark. Weld reads only the methods a class declares, so each is declared
 * again with the same phase annotation; {@code LiteExtensionMirrorTest} checks that they match.
 */
public class LiteExtension extends DistlockBuildExtension {

    @Override
    @Discovery
    public void registerBeans(ScannedClasses scanned) {
        super.registerBeans(scanned);
    }

    @Override
    @Enhancement(types = {LockedInterceptor.class, ReadLockedInterceptor.class, WriteLockedInterceptor.class})
    public void orderLocks(ClassConfig type) {
        super.orderLocks(type);
    }

    @Override
    @Enhancement(types = Object.class, withSubtypes = true, withAnnotations = {Locked.class, ReadLocked.class, WriteLocked.class})
    public void seeLockedTypes(ClassInfo type) {
        super.seeLockedTypes(type);
    }

    @Override
    @Registration(types = Object.class)
    public void resolveLocks(BeanInfo bean) {
        super.resolveLocks(bean);
    }

    @Override
    @Synthesis
    public void registerSetup(SyntheticComponents components) {
        super.registerSetup(components);
    }

    @Override
    @Validation
    public void reportProblems(Messages messages) {
        super.reportProblems(messages);
    }
}
