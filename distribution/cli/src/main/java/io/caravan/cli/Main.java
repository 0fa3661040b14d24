package io.caravan.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.caravan.cli.command.AclAuthMethodCommand;
import io.caravan.cli.command.AclAuthMethodCreateCommand;
import io.caravan.cli.command.AclAuthMethodDeleteCommand;
import io.caravan.cli.command.AclAuthMethodInfoCommand;
import io.caravan.cli.command.AclAuthMethodListCommand;
import io.caravan.cli.command.AclAuthMethodUpdateCommand;
import io.caravan.cli.command.AclBindingRuleCommand;
import io.caravan.cli.command.AclBindingRuleCreateCommand;
import io.caravan.cli.command.AclBindingRuleDeleteCommand;
import io.caravan.cli.command.AclBindingRuleInfoCommand;
import io.caravan.cli.command.AclBindingRuleListCommand;
import io.caravan.cli.command.AclBindingRuleUpdateCommand;
import io.caravan.cli.command.AclBootstrapCommand;
import io.caravan.cli.command.AclCommand;
import io.caravan.cli.command.AclPolicyApplyCommand;
import io.caravan.cli.command.AclPolicyCommand;
import io.caravan.cli.command.AclPolicyDeleteCommand;
import io.caravan.cli.command.AclPolicyInfoCommand;
import io.caravan.cli.command.AclPolicyListCommand;
import io.caravan.cli.command.AclRoleCommand;
import io.caravan.cli.command.AclRoleCreateCommand;
import io.caravan.cli.command.AclRoleDeleteCommand;
import io.caravan.cli.command.AclRoleInfoCommand;
import io.caravan.cli.command.AclRoleListCommand;
import io.caravan.cli.command.AclRoleUpdateCommand;
import io.caravan.cli.command.AclTokenCommand;
import io.caravan.cli.command.AclTokenCreateCommand;
import io.caravan.cli.command.AclTokenDeleteCommand;
import io.caravan.cli.command.AclTokenInfoCommand;
import io.caravan.cli.command.AclTokenListCommand;
import io.caravan.cli.command.AclTokenSelfCommand;
import io.caravan.cli.command.AclTokenUpdateCommand;
import io.caravan.cli.command.AgentCommand;
import io.caravan.cli.command.AllocCommand;
import io.caravan.cli.command.AllocStatusCommand;
import io.caravan.cli.command.AllocStopCommand;
import io.caravan.cli.command.AllocLogsCommand;
import io.caravan.cli.command.AllocExecCommand;
import io.caravan.cli.command.AllocFsCommand;
import io.caravan.cli.command.AllocChecksCommand;
import io.caravan.cli.command.AllocRestartCommand;
import io.caravan.cli.command.AllocSignalCommand;
import io.caravan.cli.command.AutopilotGetConfigCommand;
import io.caravan.cli.command.AutopilotHealthCommand;
import io.caravan.cli.command.AutopilotSetConfigCommand;
import io.caravan.cli.command.DeploymentCommand;
import io.caravan.cli.command.DeploymentFailCommand;
import io.caravan.cli.command.DeploymentListCommand;
import io.caravan.cli.command.DeploymentPauseCommand;
import io.caravan.cli.command.DeploymentPromoteCommand;
import io.caravan.cli.command.DeploymentResumeCommand;
import io.caravan.cli.command.DeploymentStatusCommand;
import io.caravan.cli.command.DeploymentUnblockCommand;
import io.caravan.cli.command.ConfigCommand;
import io.caravan.cli.command.ConfigReloadCommand;
import io.caravan.cli.command.ConfigValidateCommand;
import io.caravan.cli.command.EvalCommand;
import io.caravan.cli.command.EvalDeleteCommand;
import io.caravan.cli.command.EventCommand;
import io.caravan.cli.command.EventStreamCommand;
import io.caravan.cli.command.EvalListCommand;
import io.caravan.cli.command.EvalStatusCommand;
import io.caravan.cli.command.JobCommand;
import io.caravan.cli.command.JobAllocsCommand;
import io.caravan.cli.command.JobDeploymentsCommand;
import io.caravan.cli.command.JobDispatchCommand;
import io.caravan.cli.command.JobHistoryCommand;
import io.caravan.cli.command.JobPromoteCommand;
import io.caravan.cli.command.JobRevertCommand;
import io.caravan.cli.command.JobInspectCommand;
import io.caravan.cli.command.JobPeriodicCommand;
import io.caravan.cli.command.JobPeriodicForceCommand;
import io.caravan.cli.command.JobTagApplyCommand;
import io.caravan.cli.command.JobTagCommand;
import io.caravan.cli.command.JobTagUnsetCommand;
import io.caravan.cli.command.JobPlanCommand;
import io.caravan.cli.command.JobRunCommand;
import io.caravan.cli.command.JobValidateCommand;
import io.caravan.cli.command.JobStatusCommand;
import io.caravan.cli.command.JobStopCommand;
import io.caravan.cli.command.JobScaleCommand;
import io.caravan.cli.command.JobInitCommand;
import io.caravan.cli.command.JobRestartCommand;
import io.caravan.cli.command.NamespaceApplyCommand;
import io.caravan.cli.command.NamespaceCommand;
import io.caravan.cli.command.NamespaceDeleteCommand;
import io.caravan.cli.command.NamespaceListCommand;
import io.caravan.cli.command.NamespaceStatusCommand;
import io.caravan.cli.command.LoginCommand;
import io.caravan.cli.command.NodeCommand;
import io.caravan.cli.command.NodeConfigCommand;
import io.caravan.cli.command.NodeDrainCommand;
import io.caravan.cli.command.NodeEligibilityCommand;
import io.caravan.cli.command.NodeStatusCommand;
import io.caravan.cli.command.AgentInfoCommand;
import io.caravan.cli.command.OperatorAutopilotCommand;
import io.caravan.cli.command.OperatorCommand;
import io.caravan.cli.command.OperatorKeygenCommand;
import io.caravan.cli.command.OperatorRaftCommand;
import io.caravan.cli.command.NodeIntroCommand;
import io.caravan.cli.command.MonitorCommand;
import io.caravan.cli.command.NodePoolCommand;
import io.caravan.cli.command.NodeIntroCreateCommand;
import io.caravan.cli.command.OperatorRootCommand;
import io.caravan.cli.command.OperatorRootKeyringCommand;
import io.caravan.cli.command.OperatorRootKeyringListCommand;
import io.caravan.cli.command.OperatorRootKeyringRemoveCommand;
import io.caravan.cli.command.OperatorRootKeyringRotateCommand;
import io.caravan.cli.command.OperatorRaftListPeersCommand;
import io.caravan.cli.command.OperatorRaftRemovePeerCommand;
import io.caravan.cli.command.OperatorRaftSkipEntryCommand;
import io.caravan.cli.command.OperatorSchedulerCommand;
import io.caravan.cli.command.OperatorSnapshotCommand;
import io.caravan.cli.command.OperatorSnapshotInspectCommand;
import io.caravan.cli.command.OperatorSnapshotRestoreCommand;
import io.caravan.cli.command.OperatorSnapshotSaveCommand;
import io.caravan.cli.command.SchedulerGetConfigCommand;
import io.caravan.cli.command.SchedulerSetConfigCommand;
import io.caravan.cli.command.ServerCommand;
import io.caravan.cli.command.ServerForceLeaveCommand;
import io.caravan.cli.command.ServerJoinCommand;
import io.caravan.cli.command.ServerMembersCommand;
import io.caravan.cli.command.StatusCommand;
import io.caravan.cli.command.SystemCommand;
import io.caravan.cli.command.SystemGcCommand;
import io.caravan.cli.command.SystemReconcileCommand;
import io.caravan.cli.command.SystemReconcileSummariesCommand;
import io.caravan.cli.command.UiCommand;
import io.caravan.cli.command.TlsCaCreateCommand;
import io.caravan.cli.command.TlsCertCreateCommand;
import io.caravan.cli.command.TlsCommand;
import io.caravan.cli.command.TlsInfoCommand;
import io.caravan.cli.command.ServiceCommand;
import io.caravan.cli.command.ServiceDeleteCommand;
import io.caravan.cli.command.ServiceInfoCommand;
import io.caravan.cli.command.ServiceListCommand;
import io.caravan.cli.command.VarCommand;
import io.caravan.cli.command.VarGetCommand;
import io.caravan.cli.command.VarInitCommand;
import io.caravan.cli.command.VarListCommand;
import io.caravan.cli.command.VarLockCommand;
import io.caravan.cli.command.VarPurgeCommand;
import io.caravan.cli.command.VarPutCommand;
import io.caravan.cli.command.VersionCommand;
import io.caravan.launcher.Launcher;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/** Entry point of the {@code caravan} command. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.exit(run(in, System.out, System.err, System.getenv(), Main::launchAgent, args));
    }

    /** Runs one command in-process and returns its exit code; never calls {@code System.exit}. */
    static int run(PrintStream out, PrintStream err, Map<String, String> env, String... args) {
        return run(out, err, env, Main::launchAgent, args);
    }

    /** As above, with the step that boots the agent replaceable (tests must not start OSGi). */
    static int run(PrintStream out, PrintStream err, Map<String, String> env,
            Function<List<String>, Integer> agentLauncher, String... args) {
        return run(null, out, err, env, agentLauncher, args);
    }

    /** As above, with the input that prompts read ({@code null}: none, every prompt reads "no"). */
    static int run(BufferedReader in, PrintStream out, PrintStream err, Map<String, String> env,
            Function<List<String>, Integer> agentLauncher, String... args) {
        return run(null, in, out, err, env, agentLauncher, args);
    }

    /** As above, in the working directory {@code dir} ({@code null}: the process's). */
    static int run(Path dir, BufferedReader in, PrintStream out, PrintStream err, Map<String, String> env,
            Function<List<String>, Integer> agentLauncher, String... args) {
        PrintWriter o = new PrintWriter(out, true);
        PrintWriter e = new PrintWriter(err, true);
        Context ctx = new Context(o, e, env, in, dir);
        AgentCommand agent = new AgentCommand(ctx, agentLauncher);
        try {
            // The agent parses Nomad's agent flags itself (-dev, -config=x, -bind 0.0.0.0, --): hand them over
            // before picocli sees them, so nothing is reinterpreted, reordered or dropped.
            if (args.length > 0 && args[0].equals("agent")) {
                return agent.launch(Arrays.asList(args).subList(1, args.length));
            }
            return commandLine(ctx, agent).execute(args);
        } finally {
            o.flush();
            e.flush();
        }
    }

    static CommandLine commandLine(Context ctx, AgentCommand agent) {
        CommandLine cli = new CommandLine(new CaravanCommand())
                .addSubcommand(new CommandLine(new AclCommand())
                        .addSubcommand(new AclBootstrapCommand(ctx))
                        .addSubcommand(new CommandLine(new AclPolicyCommand())
                                .addSubcommand(new AclPolicyApplyCommand(ctx))
                                .addSubcommand(new AclPolicyListCommand(ctx))
                                .addSubcommand(new AclPolicyInfoCommand(ctx))
                                .addSubcommand(new AclPolicyDeleteCommand(ctx)))
                        .addSubcommand(new CommandLine(new AclTokenCommand())
                                .addSubcommand(new AclTokenCreateCommand(ctx))
                                .addSubcommand(new AclTokenListCommand(ctx))
                                .addSubcommand(new AclTokenInfoCommand(ctx))
                                .addSubcommand(new AclTokenUpdateCommand(ctx))
                                .addSubcommand(new AclTokenDeleteCommand(ctx))
                                .addSubcommand(new AclTokenSelfCommand(ctx)))
                        .addSubcommand(new CommandLine(new AclRoleCommand())
                                .addSubcommand(new AclRoleCreateCommand(ctx))
                                .addSubcommand(new AclRoleListCommand(ctx))
                                .addSubcommand(new AclRoleInfoCommand(ctx))
                                .addSubcommand(new AclRoleUpdateCommand(ctx))
                                .addSubcommand(new AclRoleDeleteCommand(ctx)))
                        .addSubcommand(new CommandLine(new AclAuthMethodCommand())
                                .addSubcommand(new AclAuthMethodCreateCommand(ctx))
                                .addSubcommand(new AclAuthMethodListCommand(ctx))
                                .addSubcommand(new AclAuthMethodInfoCommand(ctx))
                                .addSubcommand(new AclAuthMethodUpdateCommand(ctx))
                                .addSubcommand(new AclAuthMethodDeleteCommand(ctx)))
                        .addSubcommand(new CommandLine(new AclBindingRuleCommand())
                                .addSubcommand(new AclBindingRuleCreateCommand(ctx))
                                .addSubcommand(new AclBindingRuleListCommand(ctx))
                                .addSubcommand(new AclBindingRuleInfoCommand(ctx))
                                .addSubcommand(new AclBindingRuleUpdateCommand(ctx))
                                .addSubcommand(new AclBindingRuleDeleteCommand(ctx))))
                .addSubcommand(agent)
                .addSubcommand(new AgentInfoCommand(ctx))
                .addSubcommand(new CommandLine(new ConfigCommand())
                        .addSubcommand(new ConfigReloadCommand(ctx))
                        .addSubcommand(new ConfigValidateCommand(ctx)))
                .addSubcommand(new CommandLine(new ServerCommand())
                        .addSubcommand(new ServerForceLeaveCommand(ctx))
                        .addSubcommand(new ServerJoinCommand(ctx))
                        .addSubcommand(new ServerMembersCommand(ctx)))
                .addSubcommand(new CommandLine(new JobCommand())
                        .addSubcommand(new JobRunCommand(ctx))
                        .addSubcommand(new JobPlanCommand(ctx))
                        .addSubcommand(new JobValidateCommand(ctx))
                        .addSubcommand(new JobStatusCommand(ctx))
                        .addSubcommand(new JobInspectCommand(ctx))
                        .addSubcommand(new JobHistoryCommand(ctx))
                        .addSubcommand(new JobStopCommand(ctx))
                        .addSubcommand(new JobPromoteCommand(ctx))
                        .addSubcommand(new JobRevertCommand(ctx))
                        .addSubcommand(new JobDeploymentsCommand(ctx))
                        .addSubcommand(new JobAllocsCommand(ctx))
                        .addSubcommand(new JobDispatchCommand(ctx))
                        .addSubcommand(new CommandLine(new JobPeriodicCommand())
                                .addSubcommand(new JobPeriodicForceCommand(ctx)))
                        .addSubcommand(new JobScaleCommand(ctx))
                        .addSubcommand(new JobInitCommand(ctx))
                        .addSubcommand(new CommandLine(new JobTagCommand())
                                .addSubcommand(new JobTagApplyCommand(ctx))
                                .addSubcommand(new JobTagUnsetCommand(ctx)))
                        .addSubcommand(new JobRestartCommand(ctx)))
                .addSubcommand(new CommandLine(new DeploymentCommand())
                        .addSubcommand(new DeploymentListCommand(ctx))
                        .addSubcommand(new DeploymentStatusCommand(ctx))
                        .addSubcommand(new DeploymentPromoteCommand(ctx))
                        .addSubcommand(new DeploymentFailCommand(ctx))
                        .addSubcommand(new DeploymentPauseCommand(ctx))
                        .addSubcommand(new DeploymentResumeCommand(ctx))
                        .addSubcommand(new DeploymentUnblockCommand(ctx)))
                .addSubcommand(new CommandLine(new NamespaceCommand())
                        .addSubcommand(new NamespaceApplyCommand(ctx))
                        .addSubcommand(new NamespaceListCommand(ctx))
                        .addSubcommand(new NamespaceStatusCommand(ctx))
                        .addSubcommand(new NamespaceDeleteCommand(ctx)))
                .addSubcommand(new CommandLine(new EvalCommand())
                        .addSubcommand(new EvalListCommand(ctx))
                        .addSubcommand(new EvalStatusCommand(ctx))
                        .addSubcommand(new EvalDeleteCommand(ctx)))
                .addSubcommand(new CommandLine(new SystemCommand())
                        .addSubcommand(new SystemGcCommand(ctx))
                        .addSubcommand(new CommandLine(new SystemReconcileCommand())
                                .addSubcommand(new SystemReconcileSummariesCommand(ctx))))
                .addSubcommand(new CommandLine(new AllocCommand())
                        .addSubcommand(new AllocStatusCommand(ctx))
                        .addSubcommand(new AllocStopCommand(ctx))
                        .addSubcommand(new AllocLogsCommand(ctx))
                        .addSubcommand(new AllocFsCommand(ctx))
                        .addSubcommand(new AllocRestartCommand(ctx))
                        .addSubcommand(new AllocChecksCommand(ctx))
                        .addSubcommand(new AllocSignalCommand(ctx))
                        // The command's own flags follow it (sh -c ...): options end at the first positional.
                        .addSubcommand(new CommandLine(new AllocExecCommand(ctx)).setStopAtPositional(true)))
                .addSubcommand(new CommandLine(new NodeCommand())
                        .addSubcommand(new NodeConfigCommand(ctx))
                        .addSubcommand(new NodeStatusCommand(ctx))
                        .addSubcommand(new NodeEligibilityCommand(ctx))
                        .addSubcommand(new NodeDrainCommand(ctx))
                        .addSubcommand(new CommandLine(new NodeIntroCommand())
                                .addSubcommand(new NodeIntroCreateCommand(ctx)))
                        .addSubcommand(new CommandLine(new NodePoolCommand())
                                .addSubcommand(new NodePoolCommand.ListPools(ctx))
                                .addSubcommand(new NodePoolCommand.Info(ctx))
                                .addSubcommand(new NodePoolCommand.Apply(ctx))
                                .addSubcommand(new NodePoolCommand.Delete(ctx))
                                .addSubcommand(new NodePoolCommand.Nodes(ctx))
                                .addSubcommand(new NodePoolCommand.Jobs(ctx))
                                .addSubcommand(new NodePoolCommand.Init(ctx))))
                .addSubcommand(new CommandLine(new OperatorCommand())
                        .addSubcommand(new OperatorKeygenCommand(ctx))
                        .addSubcommand(new CommandLine(new OperatorRaftCommand())
                                .addSubcommand(new OperatorRaftListPeersCommand(ctx))
                                .addSubcommand(new OperatorRaftRemovePeerCommand(ctx))
                                .addSubcommand(new OperatorRaftSkipEntryCommand(ctx)))
                        .addSubcommand(new CommandLine(new OperatorSnapshotCommand())
                                .addSubcommand(new OperatorSnapshotSaveCommand(ctx))
                                .addSubcommand(new OperatorSnapshotRestoreCommand(ctx))
                                .addSubcommand(new OperatorSnapshotInspectCommand(ctx)))
                        .addSubcommand(new CommandLine(new OperatorAutopilotCommand())
                                .addSubcommand(new AutopilotGetConfigCommand(ctx))
                                .addSubcommand(new AutopilotSetConfigCommand(ctx))
                                .addSubcommand(new AutopilotHealthCommand(ctx)))
                        .addSubcommand(new CommandLine(new OperatorSchedulerCommand())
                                .addSubcommand(new SchedulerGetConfigCommand(ctx))
                                .addSubcommand(new SchedulerSetConfigCommand(ctx)))
                        .addSubcommand(new CommandLine(new OperatorRootCommand())
                                .addSubcommand(new CommandLine(new OperatorRootKeyringCommand())
                                        .addSubcommand(new OperatorRootKeyringListCommand(ctx))
                                        .addSubcommand(new OperatorRootKeyringRotateCommand(ctx))
                                        .addSubcommand(new OperatorRootKeyringRemoveCommand(ctx)))))
                .addSubcommand(new CommandLine(new EventCommand())
                        .addSubcommand(new EventStreamCommand(ctx)))
                .addSubcommand(new CommandLine(new ServiceCommand())
                        .addSubcommand(new ServiceListCommand(ctx))
                        .addSubcommand(new ServiceInfoCommand(ctx))
                        .addSubcommand(new ServiceDeleteCommand(ctx)))
                .addSubcommand(new CommandLine(new VarCommand())
                        .addSubcommand(new VarInitCommand(ctx))
                        .addSubcommand(new VarPutCommand(ctx))
                        .addSubcommand(new VarGetCommand(ctx))
                        .addSubcommand(new VarListCommand(ctx))
                        .addSubcommand(new VarPurgeCommand(ctx))
                        // The command to run follows the path: its own flags are not ours.
                        .addSubcommand(new CommandLine(new VarLockCommand(ctx)).setStopAtPositional(true)))
                .addSubcommand(new LoginCommand(ctx))
                .addSubcommand(new MonitorCommand(ctx))
                .addSubcommand(new StatusCommand(ctx))
                .addSubcommand(new CommandLine(new TlsCommand())
                        .addSubcommand(new CommandLine(new TlsCommand.Ca())
                                .addSubcommand(new TlsCaCreateCommand(ctx))
                                .addSubcommand(new TlsInfoCommand.Ca(ctx)))
                        .addSubcommand(new CommandLine(new TlsCommand.Cert())
                                .addSubcommand(new TlsCertCreateCommand(ctx))
                                .addSubcommand(new TlsInfoCommand.Cert(ctx))))
                .addSubcommand(new VersionCommand(ctx))
                .addSubcommand(new UiCommand(ctx));
        // Setters after addSubcommand so that they reach every subcommand.
        cli.setOut(ctx.out());
        cli.setErr(ctx.err());
        cli.setParameterExceptionHandler(Main::usageError);
        cli.setExpandAtFiles(false); // Nomad has no @file arguments; "@x" must stay literal
        cli.setPosixClusteredShortOptionsAllowed(false); // "-json" is one flag, never -j -s -o -n
        cli.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            // A bug, not a user error: one line, no stack trace.
            cmd.getErr().println("Error: " + ex);
            return 1;
        });
        return cli;
    }

    /**
     * Message, suggestions and usage on stderr; exit 1 as Nomad does (picocli's default is 2), unless the command
     * declares its own code ({@code job plan}: 255).
     */
    private static int usageError(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(ex.getMessage());
        UnmatchedArgumentException.printSuggestions(ex, err);
        cmd.usage(err);
        int declared = cmd.getCommandSpec().exitCodeOnInvalidInput();
        return declared == CommandLine.ExitCode.USAGE ? 1 : declared;
    }

    private static int launchAgent(List<String> args) {
        return new Launcher(Launcher.locateHome(), args).run();
    }
}
