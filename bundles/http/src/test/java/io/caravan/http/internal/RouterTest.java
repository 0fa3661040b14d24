package io.caravan.http.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import io.caravan.api.acl.AclRule;
import io.caravan.http.ApiEndpoint;
import io.caravan.http.ApiResponse;
import io.caravan.http.AsyncHandler;
import org.junit.jupiter.api.Test;

class RouterTest {
    private static final ApiEndpoint ANY = ApiEndpoint.of("Test.Route", AclRule.PUBLIC);

    private final AsyncHandler jobAllocs = r -> java.util.concurrent.CompletableFuture.completedFuture(ApiResponse.ok("allocs"));
    private final AsyncHandler job = r -> java.util.concurrent.CompletableFuture.completedFuture(ApiResponse.ok("job"));
    private final AsyncHandler self = r -> java.util.concurrent.CompletableFuture.completedFuture(ApiResponse.ok("self"));

    private Router router() {
        return Router.of(List.of(
                new Router.Route("GET", new Router.Pattern("/v1/job/{id*}"), ANY, job, 0, "a"),
                new Router.Route("GET", new Router.Pattern("/v1/job/{id}/allocations"), ANY, jobAllocs, 0, "a"),
                new Router.Route("GET", new Router.Pattern("/v1/agent/self"), ANY, self, 0, "a")));
    }

    @Test
    void literalSuffixBeatsRestOfPath() {
        Router.Found found = assertInstanceOf(Router.Found.class, router().find("GET", "/v1/job/web/allocations"));
        assertSame(jobAllocs, found.handler());
        assertEquals(Map.of("id", "web"), found.params());
    }

    @Test
    void restParameterKeepsSlashes() {
        Router.Found found = assertInstanceOf(Router.Found.class, router().find("GET", "/v1/job/a/b/c"));
        assertSame(job, found.handler());
        assertEquals("a/b/c", found.params().get("id"));
    }

    @Test
    void knownPathWithOtherMethodIsWrongMethodAndUnknownPathIsNotFound() {
        assertInstanceOf(Router.WrongMethod.class, router().find("DELETE", "/v1/agent/self"));
        assertInstanceOf(Router.NotFound.class, router().find("GET", "/v1/agent/nope"));
        assertInstanceOf(Router.NotFound.class, router().find("GET", "/v1/job"));
    }

    @Test
    void higherRankingOverridesQuietlyAndEqualRankingIsReported() {
        AsyncHandler other = r -> java.util.concurrent.CompletableFuture.completedFuture(ApiResponse.ok("other"));
        Router r = Router.of(List.of(
                new Router.Route("GET", new Router.Pattern("/v1/agent/self"), ANY, self, 0, "low"),
                new Router.Route("GET", new Router.Pattern("/v1/agent/self"), ANY, other, 10, "high")));
        assertSame(other, ((Router.Found) r.find("GET", "/v1/agent/self")).handler());
        assertEquals(List.of(), r.conflicts(), "an override by ranking is intended");

        Router tie = Router.of(List.of(
                new Router.Route("GET", new Router.Pattern("/v1/agent/self"), ANY, self, 0, "first"),
                new Router.Route("GET", new Router.Pattern("/v1/agent/self"), ANY, other, 0, "second")));
        assertEquals(1, tie.conflicts().size());
    }

    @Test
    void restParameterMustBeLast() {
        assertThrows(IllegalArgumentException.class, () -> new Router.Pattern("/v1/{x*}/y"));
    }

    @Test
    void pathSegmentsArePercentDecodedAfterSplitting() {
        Router.Found found = assertInstanceOf(Router.Found.class, router().find("GET", "/v1/job/my%20job%2Fx%C3%A9+1/allocations"));
        assertEquals("my job/xé+1", found.params().get("id"));
        assertEquals("100%", Router.Pattern.decode("100%"));
        assertEquals("%zz", Router.Pattern.decode("%zz"));
    }
}
