package io.caravan.console.internal;

import java.util.Collection;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import org.apache.felix.webconsole.spi.ConfigurationHandler;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * Keeps the keys of a Caravan configuration that its web-console form does not show. Several components share a PID
 * ({@code io.caravan.server} is read by the Raft, membership, ACL and scheduling components), and a form shows the
 * one definition the console finds; saving the form would drop every key that definition does not name (the console
 * writes only the form's fields). Keys outside the definition are therefore filtered from the console's view, and the
 * console puts filtered keys back as they were when it saves.
 */
@Component(service = ConfigurationHandler.class)
public final class FormKeepsOtherKeys implements ConfigurationHandler {
    private static final String OURS = "io.caravan.";

    private final BundleContext context;
    private final MetaTypeService metatype;

    @Activate
    public FormKeepsOtherKeys(BundleContext context, @Reference MetaTypeService metatype) {
        this.context = context;
        this.metatype = metatype;
    }

    @Override
    public void filterProperties(String factoryPid, String pid, Collection<String> names) {
        String definedAs = factoryPid != null ? factoryPid : pid;
        if (definedAs == null || !definedAs.startsWith(OURS)) {
            return;
        }
        formKeys(definedAs, factoryPid != null).ifPresent(shown -> names.removeIf(name -> !shown.contains(name)));
    }

    /**
     * The attribute IDs of the definition the console shows for {@code pid}: the first bundle, in framework order (as
     * the console looks), whose metatype designates it. Empty when none does (the console then shows every key).
     */
    Optional<Set<String>> formKeys(String pid, boolean factory) {
        for (Bundle bundle : context.getBundles()) {
            MetaTypeInformation info = metatype.getMetaTypeInformation(bundle);
            if (info == null || !contains(factory ? info.getFactoryPids() : info.getPids(), pid)) {
                continue;
            }
            ObjectClassDefinition ocd = info.getObjectClassDefinition(pid, null);
            Set<String> ids = new HashSet<>();
            AttributeDefinition[] all = ocd == null ? null : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL);
            if (all != null) {
                for (AttributeDefinition ad : all) {
                    ids.add(ad.getID());
                }
            }
            return Optional.of(ids);
        }
        return Optional.empty();
    }

    private static boolean contains(String[] pids, String pid) {
        if (pids != null) {
            for (String p : pids) {
                if (p.equals(pid)) {
                    return true;
                }
            }
        }
        return false;
    }

    // The console's other calls: nothing to add to them.

    @Override
    public void createConfiguration(String pid) {
    }

    @Override
    public void createFactoryConfiguration(String factoryPid, String name) {
    }

    @Override
    public void deleteConfiguration(String factoryPid, String pid) {
    }

    @Override
    public void updateConfiguration(String factoryPid, String pid, Dictionary<String, Object> props) {
    }
}
