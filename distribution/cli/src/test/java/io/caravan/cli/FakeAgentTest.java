package io.caravan.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Tests of commands that talk to an agent: a fresh {@link FakeAgent} per test. */
abstract class FakeAgentTest {
    protected FakeAgent agent;

    @BeforeEach
    void startFakeAgent() throws Exception {
        agent = new FakeAgent();
    }

    @AfterEach
    void stopFakeAgent() {
        agent.close();
    }
}
