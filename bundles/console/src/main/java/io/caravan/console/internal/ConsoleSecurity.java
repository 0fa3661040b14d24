package io.caravan.console.internal;

import java.util.Hashtable;

import io.caravan.api.acl.AclResolver;
import io.caravan.http.ConsoleAccess;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.felix.webconsole.spi.SecurityProvider;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * While ACLs are enabled, the web console signs in with a management token instead of its own user and password:
 * a {@link SecurityProvider} ranked above the console's built-in Basic one (which Web Console 5 registers at the
 * lowest ranking) accepts exactly the callers {@link ConsoleAccess} allows. The HTTP bundle's guard has already
 * refused the others, whatever the spelling of the path; this keeps the console closed should the guard be absent.
 * With ACLs off nothing is registered and the console keeps its own login.
 */
@Component(configurationPid = "io.caravan.http", immediate = true, service = {})
public final class ConsoleSecurity {
    @interface Config {
        /** The agent's {@code acl.enabled}, as it writes it for the HTTP API. */
        boolean acl_enabled() default false;
    }

    private final BundleContext context;
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile AclResolver resolver;
    private ServiceRegistration<SecurityProvider> registration;

    @Activate
    public ConsoleSecurity(BundleContext context, Config config) {
        this.context = context;
        apply(config);
    }

    @Modified
    synchronized void apply(Config config) {
        if (config.acl_enabled() && registration == null) {
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put(Constants.SERVICE_RANKING, 1000);
            registration = context.registerService(SecurityProvider.class, new TokenProvider(), properties);
        } else if (!config.acl_enabled() && registration != null) {
            registration.unregister();
            registration = null;
        }
    }

    @Deactivate
    synchronized void deactivate() {
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
    }

    /** Accepts a management token; answers anything else with the status {@link ConsoleAccess} gives it. */
    final class TokenProvider implements SecurityProvider {
        @Override
        public Object authenticate(HttpServletRequest request, HttpServletResponse response) {
            ConsoleAccess.Verdict verdict = ConsoleAccess.check(resolver,
                    ConsoleAccess.token(request.getHeader("X-Nomad-Token"), request.getHeader("Authorization")));
            if (verdict == ConsoleAccess.Verdict.ALLOWED) {
                return "management";
            }
            try {
                if (verdict == ConsoleAccess.Verdict.NO_TOKEN) {
                    response.setHeader("WWW-Authenticate", "Basic realm=\"" + ConsoleAccess.REALM + "\"");
                }
                response.sendError(verdict.status(), verdict.message());
            } catch (java.io.IOException | IllegalStateException e) {
                // the response is gone or committed: the console refuses the request all the same
            }
            return null;
        }

        /** A management token may do everything the console offers. */
        @Override
        public boolean authorize(Object user, String role) {
            return user != null;
        }

        @Override
        public void logout(HttpServletRequest request, HttpServletResponse response) {
            // nothing is kept between requests: every one presents its token
        }
    }
}
