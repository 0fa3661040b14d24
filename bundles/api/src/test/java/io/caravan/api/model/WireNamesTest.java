package io.caravan.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.caravan.api.json.NomadJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The top-level keys of the server's objects, copied from NOMAD-REFERENCE §1.9. */
class WireNamesTest {
    private static final ObjectMapper MAPPER = NomadJson.mapper();

    private static final String EVALUATION = "ID, Namespace, Priority, Type, TriggeredBy, JobID, JobModifyIndex, NodeID, "
            + "NodeModifyIndex, DeploymentID, Status, StatusDescription, Wait, WaitUntil, NextEval, PreviousEval, "
            + "BlockedEval, RelatedEvals, FailedTGAllocs, ClassEligibility, QuotaLimitReached, EscapedComputedClass, "
            + "AnnotatePlan, QueuedAllocations, LeaderACL, SnapshotIndex, CreateIndex, ModifyIndex, CreateTime, ModifyTime";
    private static final String ALLOCATION = "ID, Namespace, EvalID, Name, NodeID, NodeName, JobID, Job, TaskGroup, "
            + "AllocatedResources, Metrics, DesiredStatus, DesiredDescription, DesiredTransition, ClientStatus, "
            + "ClientDescription, TaskStates, AllocStates, PreviousAllocation, NextAllocation, DeploymentID, "
            + "DeploymentStatus, RescheduleTracker, NetworkStatus, FollowupEvalID, PreemptedAllocations, "
            + "PreemptedByAllocation, SigningKeyID, CreateIndex, ModifyIndex, AllocModifyIndex, CreateTime, ModifyTime";
    private static final String ALLOC_METRIC = "NodesEvaluated, NodesFiltered, NodesInPool, NodePool, NodesAvailable, "
            + "ClassFiltered, ConstraintFiltered, NodesExhausted, ClassExhausted, DimensionExhausted, QuotaExhausted, "
            + "ResourcesExhausted, ScoreMetaData, AllocationTime, CoalescedFailures";
    private static final String NODE = "ID, Datacenter, Name, CgroupParent, HTTPAddr, TLSEnabled, Attributes, "
            + "NodeResources, ReservedResources, Links, Meta, NodeClass, NodePool, ComputedClass, DrainStrategy, "
            + "SchedulingEligibility, Status, StatusDescription, IdentitySigningKeyID, StatusUpdatedAt, Events, Drivers, "
            + "CSIControllerPlugins, CSINodePlugins, HostVolumes, HostNetworks, LastDrain, NodeMaxAllocs, "
            + "LastMissedHeartbeatIndex, LastAllocUpdateIndex, CreateIndex, ModifyIndex, Drain";

    @Test
    void evaluation() throws Exception {
        Evaluation eval = MAPPER.readValue("""
                {"ID": "e1", "Status": "blocked", "Wait": 5000000000, "WaitUntil": "2024-01-01T00:00:00Z",
                 "FailedTGAllocs": {"app": {"NodesEvaluated": 3, "DimensionExhausted": {"memory": 2},
                   "ScoreMetaData": [{"NodeID": "n1", "Scores": {"binpack": 0.5}, "NormScore": 0.5}], "AllocationTime": 1200}},
                 "QueuedAllocations": {"app": 2}, "ClassEligibility": {"v1:123": true}, "LeaderACL": ""}
                """, Evaluation.class);
        JsonNode out = MAPPER.valueToTree(eval);
        assertEquals(names(EVALUATION), keys(out));
        assertEquals(names(ALLOC_METRIC), keys(out.get("FailedTGAllocs").get("app")));
        assertEquals(5_000_000_000L, out.get("Wait").asLong());
        assertEquals(Duration.ofNanos(1200), eval.failedTgAllocs().get("app").allocationTime());
        assertEquals(Set.of("NodeID", "Scores", "NormScore"), keys(out.get("FailedTGAllocs").get("app").get("ScoreMetaData").get(0)));
        assertEquals(eval, MAPPER.treeToValue(out, Evaluation.class));
        Evaluation done = eval.withStatus(Evaluation.STATUS_COMPLETE, "").withIndexes(4, 5);
        assertTrue(done.terminal());
        assertEquals(5, done.modifyIndex());
        assertEquals(eval.failedTgAllocs(), done.failedTgAllocs());
    }

    @Test
    void allocation() throws Exception {
        Allocation alloc = MAPPER.readValue("""
                {"ID": "a1", "Name": "web.app[0]", "Job": {"ID": "web", "Type": "service", "Version": 4},
                 "AllocatedResources": {"Tasks": {"server": {"Cpu": {"CpuShares": 100}, "Memory": {"MemoryMB": 300}}},
                                        "Shared": {"DiskMB": 300, "Ports": [{"Label": "http", "Value": 23456, "HostIP": "10.0.0.5"}]}},
                 "Metrics": {"NodesEvaluated": 1},
                 "DesiredStatus": "run", "ClientStatus": "running",
                 "TaskStates": {"server": {"State": "running", "StartedAt": "2024-01-01T00:00:01Z",
                     "Events": [{"Type": "Started", "Time": 1704067201000000000, "Details": {}, "KillTimeout": 5000000000}]}},
                 "AllocStates": [{"Field": "ClientStatus", "Value": "unknown", "Time": "2024-01-01T00:00:02Z"}],
                 "DeploymentStatus": {"Healthy": true, "Timestamp": "2024-01-01T00:00:03Z", "Canary": false, "ModifyIndex": 7},
                 "RescheduleTracker": {"Events": [{"RescheduleTime": 1, "PrevAllocID": "a0", "PrevNodeID": "n0", "Delay": 30000000000}]}}
                """, Allocation.class);
        JsonNode out = MAPPER.valueToTree(alloc);
        assertEquals(names(ALLOCATION), keys(out));
        assertEquals(names(ALLOC_METRIC), keys(out.get("Metrics")));
        assertEquals(Set.of("Migrate", "Reschedule", "ForceReschedule", "NoShutdownDelay", "MigrateDisablePlacement"),
                keys(out.get("DesiredTransition")));
        assertEquals(Set.of("Healthy", "Timestamp", "Canary", "ModifyIndex"), keys(out.get("DeploymentStatus")));
        assertEquals(Set.of("RescheduleTime", "PrevAllocID", "PrevNodeID", "Delay"),
                keys(out.get("RescheduleTracker").get("Events").get(0)));
        assertEquals(Set.of("Field", "Value", "Time"), keys(out.get("AllocStates").get(0)));
        assertEquals(Set.of("State", "Failed", "Restarts", "LastRestart", "StartedAt", "FinishedAt", "Events", "Paused"),
                keys(out.get("TaskStates").get("server")));
        assertEquals(100, out.get("AllocatedResources").get("Tasks").get("server").get("Cpu").get("CpuShares").asInt());
        assertEquals("10.0.0.5", out.get("AllocatedResources").get("Shared").get("Ports").get(0).get("HostIP").asText());
        assertEquals(alloc, MAPPER.treeToValue(out, Allocation.class));

        Allocation lost = alloc.withClientStatus(Allocation.CLIENT_LOST, "node down")
                .withDesiredStatus(Allocation.DESIRED_STOP, "alloc is lost since its node is down").withIndexes(1, 9, 9);
        assertTrue(lost.terminal());
        assertEquals(9, lost.allocModifyIndex());
        AllocListStub stub = AllocListStub.of(lost, false);
        assertEquals("service", stub.jobType());
        assertEquals(4, stub.jobVersion());
        assertEquals(Allocation.CLIENT_LOST, stub.clientStatus());
        assertEquals(stub, MAPPER.readValue(MAPPER.writeValueAsString(stub), AllocListStub.class));
    }

    @Test
    void node() throws Exception {
        Node node = MAPPER.readValue("{\"ID\": \"n1\", \"SecretID\": \"s\", \"LastDrain\": {\"Status\": \"complete\"}}", Node.class);
        JsonNode out = MAPPER.valueToTree(node);
        assertEquals(names(NODE), keys(out));
        assertEquals(Set.of("StartedAt", "UpdatedAt", "Status", "AccessorID", "Meta"), keys(out.get("LastDrain")));
        assertEquals(Set.of("Deadline", "IgnoreSystemJobs", "ForceDeadline", "StartedAt"),
                keys(MAPPER.valueToTree(new DrainStrategy(Duration.ofMinutes(1), false, null, null))));
    }

    @Test
    void taskEventKeepsTheDeprecatedFlatFields() {
        JsonNode out = MAPPER.valueToTree(new TaskEvent(TaskEvent.TERMINATED, 1, "", "", null, false, "", "", "", 137, 9,
                null, "", "", 0, "", "", 0, "", "", "", "", "", ""));
        assertEquals(names("Type, Time, Message, DisplayMessage, Details, FailsTask, RestartReason, SetupError, DriverError, "
                + "ExitCode, Signal, KillTimeout, KillError, KillReason, StartDelay, DownloadError, ValidationError, "
                + "DiskLimit, FailedSibling, VaultError, TaskSignalReason, TaskSignal, DriverMessage, GenericSource"), keys(out));
    }

    static Stream<Class<?>> recordTypes() {
        List<Class<?>> top = List.of(Affinity.class, AllocDeploymentStatus.class, AllocListStub.class, AllocMetric.class,
                AllocatedResources.class, Allocation.class, Constraint.class, Deployment.class, DeploymentState.class,
                DesiredTransition.class, DisconnectStrategy.class, DispatchPayloadConfig.class, DrainStrategy.class,
                DriverInfo.class, EphemeralDisk.class, Evaluation.class, HostVolumeInfo.class, Job.class,
                JobListStub.class, JobSummary.class, LogConfig.class, MigrateStrategy.class, Namespace.class,
                NetworkResource.class, Node.class, NodeEvent.class, NodeListStub.class, NodeReservedResources.class,
                NodeResources.class, ParameterizedJobConfig.class, PeriodicConfig.class, Port.class,
                RequestedDevice.class, RescheduleTracker.class, ReschedulePolicy.class, Resources.class,
                RestartPolicy.class, Service.class, ServiceCheck.class, Spread.class, Task.class, TaskArtifact.class,
                TaskEvent.class, TaskGroup.class, TaskGroupSummary.class, TaskLifecycle.class, TaskState.class,
                Template.class, UpdateStrategy.class, VolumeMount.class, VolumeRequest.class);
        List<Class<?>> all = new ArrayList<>(top);
        top.forEach(c -> all.addAll(Arrays.asList(c.getDeclaredClasses())));
        return all.stream().filter(Class::isRecord);
    }

    @ParameterizedTest
    @MethodSource("recordTypes")
    void everyTypeReadsEmptyInputAndWritesNoNullCollections(Class<?> type) throws Exception {
        Object value = MAPPER.readValue("{}", type);
        JsonNode out = MAPPER.valueToTree(value);
        for (RecordComponent c : type.getRecordComponents()) {
            if (List.class.isAssignableFrom(c.getType())) {
                assertTrue(c.getAccessor().invoke(value) != null, type.getSimpleName() + "." + c.getName());
            }
            if (c.getType() == Duration.class) {
                assertTrue(c.isAnnotationPresent(NanoDuration.class), type.getSimpleName() + "." + c.getName() + " needs @NanoDuration");
            }
            if (c.getType() == Instant.class) {
                assertTrue(c.isAnnotationPresent(GoTime.class), type.getSimpleName() + "." + c.getName() + " needs @GoTime");
            }
        }
        assertEquals(value, MAPPER.treeToValue(out, type), type.getSimpleName());
        // Every component is written (Node swaps SecretID for Drain), and nothing else leaks out.
        assertEquals(type.getRecordComponents().length, keys(out).size(), type.getSimpleName() + " " + keys(out));
    }

    private static Set<String> names(String list) {
        Set<String> set = new TreeSet<>();
        for (String name : list.split(",")) {
            set.add(name.trim());
        }
        return set;
    }

    private static Set<String> keys(JsonNode node) {
        Set<String> set = new TreeSet<>();
        node.fieldNames().forEachRemaining(set::add);
        return set;
    }
}
