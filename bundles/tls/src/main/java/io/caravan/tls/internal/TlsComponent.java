package io.caravan.tls.internal;

import java.util.Map;

import io.caravan.tls.AgentTls;
import io.caravan.tls.ReloadableTls;
import io.caravan.tls.TlsException;
import io.caravan.tls.TlsMaterial;
import io.caravan.tls.TlsSettings;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PID {@code io.caravan.tls}: the agent writes it always (TLS off included), so components that need the agent's TLS
 * start only once it is known. A reload that changes the files ({@code tls.fingerprint}) swaps the certificates in
 * place; the service object stays, so no listener restarts. The agent checked the files before writing them; if
 * they changed again since and no longer load, the certificates in force stay.
 */
@Component(configurationPid = "io.caravan.tls", configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = AgentTls.class)
public final class TlsComponent implements AgentTls {
    private static final Logger LOG = LoggerFactory.getLogger(TlsComponent.class);

    private final TlsSettings settings;
    private final ReloadableTls identity;
    private volatile String fingerprint;

    @Activate
    public TlsComponent(Map<String, Object> properties) throws TlsException {
        settings = TlsSettings.of(properties);
        if (settings.enabled()) {
            TlsMaterial material = TlsMaterial.load(settings);
            identity = new ReloadableTls(settings, material);
            fingerprint = material.fingerprint();
            LOG.atInfo().addKeyValue("http", settings.http()).addKeyValue("rpc", settings.rpc())
                    .addKeyValue("serial", material.chain().get(0).getSerialNumber().toString(16))
                    .log("TLS enabled");
        } else {
            identity = null;
        }
    }

    @Modified
    void modified(Map<String, Object> properties) {
        if (identity == null) {
            return;   // turning TLS on is a restart (the agent reports it so)
        }
        // Every key but the three files is restart-scoped (the agent keeps their running values).
        // The files are read again whatever the properties say: an edit in Config Admin carries no fingerprint.
        TlsSettings next = TlsSettings.of(properties);
        try {
            TlsMaterial material = TlsMaterial.load(settings.withFiles(next.caFile(), next.certFile(), next.keyFile()));
            if (material.fingerprint().equals(fingerprint)) {
                return;
            }
            identity.reload(material);
            fingerprint = material.fingerprint();
            LOG.atInfo().addKeyValue("serial", material.chain().get(0).getSerialNumber().toString(16))
                    .log("TLS certificates reloaded: new connections use them");
        } catch (TlsException e) {
            LOG.atError().addKeyValue("error", e.getMessage())
                    .log("TLS certificates not reloaded; the ones in force stay");
        }
    }

    @Override
    public TlsSettings settings() {
        return settings;
    }

    @Override
    public ReloadableTls identity() {
        return identity;
    }
}
