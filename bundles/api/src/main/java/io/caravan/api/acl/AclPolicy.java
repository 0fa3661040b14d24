package io.caravan.api.acl;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Nomad's {@code ACLPolicy}: a named set of rules in Nomad's policy language (HCL or JSON), kept as written. With a
 * {@code JobACL} it is attached to the workload identities of that job (or one group, or one task of it).
 */
public record AclPolicy(String name, String description, String rules, @JsonProperty("JobACL") JobAcl jobAcl,
                        long createIndex, long modifyIndex) {

    /** A policy attached to no job. */
    public AclPolicy(String name, String description, String rules, long createIndex, long modifyIndex) {
        this(name, description, rules, null, createIndex, modifyIndex);
    }

    public AclPolicy withIndexes(long create, long modify) {
        return new AclPolicy(name, description, rules, jobAcl, create, modify);
    }

    public Stub stub() {
        return new Stub(name, description, createIndex, modifyIndex);
    }

    /** Nomad's {@code ACLPolicyListStub}. */
    public record Stub(String name, String description, long createIndex, long modifyIndex) {}

    /**
     * Nomad's {@code JobACL}: the workloads a policy is attached to, a job of a namespace, narrowed to one group and
     * one task of that group when they are set.
     */
    public record JobAcl(String namespace, String jobId, String group, String task) {

        /** Whether a workload of task {@code taskName} of group {@code groupName} of job {@code job} gets the policy. */
        public boolean matches(String ns, String job, String groupName, String taskName) {
            return nz(namespace, "default").equals(ns) && nz(jobId, "").equals(job)
                    && (nz(group, "").isEmpty() || group.equals(groupName))
                    && (nz(task, "").isEmpty() || task.equals(taskName));
        }

        private static String nz(String s, String dflt) {
            return s == null || s.isEmpty() ? dflt : s;
        }
    }
}
