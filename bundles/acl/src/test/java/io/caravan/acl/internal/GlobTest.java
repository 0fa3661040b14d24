package io.caravan.acl.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GlobTest {

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource({
            "*, default, true",
            "*, '', true",
            "prod-*, prod-web, true",
            "prod-*, prod-, true",
            "prod-*, prod, false",
            "prod-*, staging-prod-web, false",
            "*-web, prod-web, true",
            "*-web, prod-web-2, false",
            "prod-*-web, prod-eu-web, true",
            "prod-*-web, prod-web, false",
            "prod-*-web, prod--web, true",
            "a*b*c, abc, true",
            "a*b*c, aXbYc, true",
            "a*b*c, acb, false",
            "a*b*c, abcbc, true",
            "ab*ba, aba, false",
            "ab*ba, abba, true",
            "**, x, true",
            "default, default, true",
            "default, defaults, false",
            "nomad/jobs/*, nomad/jobs/web/group, true",
            "nomad/jobs/*, nomad/jobs, false",
    })
    void matches(String pattern, String name, boolean matches) {
        assertEquals(matches, new Glob(pattern).matches(name));
    }

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource({
            "*, default, 7",
            "prod-*, prod-web, 3",
            "*-web, prod-web, 4",
            "prod-*-web, prod-eu-web, 2",
            "default, default, 0",
    })
    void distanceIsWhatTheStarsCover(String pattern, String name, int distance) {
        assertEquals(distance, new Glob(pattern).distance(name));
    }
}
