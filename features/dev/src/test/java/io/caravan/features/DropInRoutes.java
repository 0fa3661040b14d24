package io.caravan.features;

import java.util.Map;

import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.ApiRoutes;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;

/**
 * An endpoint group as a third party would ship it: a bundle of its own whose activator registers its routes (one
 * endpoint, declared with its rule). {@link DevFeatureIT} packs this class alone into a bundle at run time, installs
 * it into the running agent and uninstalls it again. Lambdas only, so that the one class file is the whole bundle.
 */
public final class DropInRoutes implements BundleActivator {
    static final ApiEndpoint HELLO = ApiEndpoint.of("DropIn.Hello", AclRule.PUBLIC);

    @Override
    public void start(BundleContext context) {
        ApiRoutes routes = table -> table.get("/v1/dropin/hello", HELLO,
                r -> ApiResponse.ok(Map.of("Hello", "drop-in")));
        context.registerService(ApiRoutes.class, routes, null);
    }

    @Override
    public void stop(BundleContext context) {
        // The framework unregisters the service with the bundle.
    }
}
