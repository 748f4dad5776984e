import Foundation
import LockerKit
import Testing
import Yams

/// The GitHub Actions workflow `locker init` writes: valid against GitHub's schema, with the
/// expected jobs, and every `run:` step working on a vault made by `locker init`, run here
/// step by step as a runner would (the `uses:` steps are GitHub's own actions and are not run,
/// but for the vault's own composite action, whose steps are).
@Suite struct CIWorkflowTests {
    /// A vault made by `locker init` in a git repository of its own, with a runner's folders.
    struct Repository {
        let workspace: Workspace
        var root: URL { workspace.root.appendingPathComponent("repo") }
        let home: URL
        let temp: URL
        let githubPath: URL

        init() throws {
            workspace = try Workspace([:])
            home = workspace.root.appendingPathComponent("home")
            temp = workspace.root.appendingPathComponent("runner-temp")
            githubPath = workspace.root.appendingPathComponent("github-path")
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
            let made = try LockerRun(["init", "repo", "--locales", "en,ru"], in: workspace.root)
            guard made.status == 0 else { throw Failure("locker init: \(made.stderr)") }
            try git(["init", "-q", "-b", "main"])
            try commit("Start the vault")
            // The cache holds this release's locker, as after a first run of the workflow.
            let bin = home.appendingPathComponent(".locker/bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: bin.appendingPathComponent("locker"), withDestinationURL: LockerRun.binary)
        }

        func remove() { workspace.remove() }

        @discardableResult
        func git(_ arguments: [String]) throws -> String {
            let run = try LockerRun(
                ["-c", "user.name=Author", "-c", "user.email=author@example.org"] + arguments, in: root,
                environment: [:], executable: "/usr/bin/git")
            guard run.status == 0 else { throw Failure("git \(arguments.joined(separator: " ")): \(run.stderr)") }
            return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// Commits everything and returns the commit.
        @discardableResult
        func commit(_ message: String) throws -> String {
            try git(["add", "-A"])
            try git(["commit", "-q", "-m", message])
            return try git(["rev-parse", "HEAD"])
        }

        func write(_ path: String, _ text: String) throws {
            try Data(text.utf8).write(to: root.appendingPathComponent(path))
        }

        func read(_ path: String) throws -> String {
            String(decoding: try Data(contentsOf: root.appendingPathComponent(path)), as: UTF8.self)
        }

        func yaml(_ path: String) throws -> [String: Any] {
            guard let document = try Yams.load(yaml: try read(path)) as? [String: Any] else {
                throw Failure("\(path) is not a YAML mapping")
            }
            return document
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a step printed and how it ended.
    struct StepRun {
        var name: String
        var status: Int32
        var output: String
    }

    /// Runs the `run:` steps of one job in order, as a runner does: `bash -eo pipefail`, the
    /// workflow's, job's and step's `env` with their expressions filled in from `expressions`
    /// (an expression the test does not know fails it), and each folder a step appends to
    /// `$GITHUB_PATH` put on the `PATH` of the steps after it. Each step's result, by name.
    static func runJob(
        _ job: String, of workflow: [String: Any], in repository: Repository, expressions: [String: String],
        only names: Set<String>? = nil
    ) throws -> [String: StepRun] {
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        let definition = try #require(jobs[job] as? [String: Any])
        var environment = try Self.environment(workflow["env"], expressions)
        environment.merge(try Self.environment(definition["env"], expressions)) { $1 }
        var steps = try #require(definition["steps"] as? [[String: Any]])
        // The vault's own composite action runs in place of the step that uses it.
        if let index = steps.firstIndex(where: { ($0["uses"] as? String) == "./.github/actions/setup-locker" }) {
            let action = try repository.yaml(".github/actions/setup-locker/action.yml")
            let runs = try #require(action["runs"] as? [String: Any])
            steps.replaceSubrange(index...index, with: try #require(runs["steps"] as? [[String: Any]]))
        }
        var results: [String: StepRun] = [:]
        for step in steps {
            guard let script = step["run"] as? String else { continue }
            let name = try #require(step["name"] as? String, "a run step has a name")
            if let names, !names.contains(name) { continue }
            var variables = environment.merging(try Self.environment(step["env"], expressions)) { $1 }
            let path = (try? String(contentsOf: repository.githubPath, encoding: .utf8)) ?? ""
            let added = path.split(separator: "\n").map(String.init).reversed()
            variables["PATH"] = (added + [ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
                .joined(separator: ":")
            variables["HOME"] = repository.home.path
            variables["RUNNER_TEMP"] = repository.temp.path
            variables["GITHUB_PATH"] = repository.githubPath.path
            variables["GITHUB_WORKSPACE"] = repository.root.path
            variables["CI"] = "true"
            // pip's downloads are kept where this machine keeps them, not in the runner's home.
            if let home = ProcessInfo.processInfo.environment["HOME"] {
                variables["PIP_CACHE_DIR"] = home + "/.cache/pip"
            }
            let run = try LockerRun(
                ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], in: repository.root,
                environment: variables, executable: "/bin/bash", timeLimit: 300)
            results[name] = StepRun(name: name, status: run.status, output: run.stdout + run.stderr)
        }
        return results
    }

    /// An `env:` mapping with each `${{ … }}` filled in.
    static func environment(_ value: Any?, _ expressions: [String: String]) throws -> [String: String] {
        guard let mapping = value as? [String: Any] else { return [:] }
        var environment: [String: String] = [:]
        for (key, value) in mapping {
            var text = "\(value)"
            while let range = text.range(of: #"\$\{\{\s*([^}]*?)\s*\}\}"#, options: .regularExpression) {
                let expression = text[range].dropFirst(3).dropLast(2).trimmingCharacters(in: .whitespaces)
                let filled = try #require(expressions[expression], "the test knows the expression \(expression)")
                text.replaceSubrange(range, with: filled)
            }
            environment[key] = text
        }
        return environment
    }

    @Test func theWorkflowIsValidWithTheExpectedJobs() throws {
        let repository = try Repository()
        defer { repository.remove() }
        let workflow = try repository.yaml(".github/workflows/locker.yml")
        let jobs = try #require(workflow["jobs"] as? [String: [String: Any]])
        #expect(Set(jobs.keys) == ["check", "publish"])
        let check = try #require(jobs["check"])
        #expect((check["if"] as? String) == "github.event_name == 'pull_request'")
        #expect((check["permissions"] as? [String: String])?["security-events"] == "write")
        let checkSteps = try #require(check["steps"] as? [[String: Any]])
        #expect(checkSteps.contains { ($0["uses"] as? String) == "github/codeql-action/upload-sarif@v3" })
        #expect(checkSteps.contains { ($0["run"] as? String)?.contains("--changed-since \"$BASE\"") == true })
        let publish = try #require(jobs["publish"])
        #expect((publish["if"] as? String)?.contains("refs/heads/main") == true)
        let publishSteps = try #require(publish["steps"] as? [[String: Any]])
        #expect(publishSteps.filter { ($0["uses"] as? String) == "cloudflare/wrangler-action@v3" }.count == 2)
        #expect(
            publishSteps.contains {
                (($0["env"] as? [String: String])?["LOCKER_SIGNING_KEY"]) == "${{ secrets.LOCKER_SIGNING_KEY }}"
            })

        // The release it installs is this one, and the libraries are those the Makefile installs.
        let environment = try #require(workflow["env"] as? [String: String])
        let version = try LockerRun(["--version"], in: repository.root)
        #expect(version.stdout.hasPrefix("locker \(try #require(environment["LOCKER_VERSION"])) "))
        let makefile = try String(
            contentsOf: BuiltContent.repository.appendingPathComponent("Makefile"), encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("BUILD_PACKAGES :=") })
        let packages = line.dropFirst("BUILD_PACKAGES :=".count).split(separator: " ").map(String.init)
        #expect(
            environment["LOCKER_LIBRARIES"]?.split(separator: " ").map(String.init)
                == packages.filter { !["pkg-config", "git"].contains($0) })
        let action = try repository.yaml(".github/actions/setup-locker/action.yml")
        let cache = try #require(((action["runs"] as? [String: Any])?["steps"] as? [[String: Any]])?.first)
        #expect(
            (cache["with"] as? [String: String])?["key"]
                == "locker-${{ runner.os }}-${{ runner.arch }}-${{ env.ImageOS }}-${{ env.LOCKER_VERSION }}-${{ env.LOCKER_REPOSITORY }}"
        )
        #expect((check["permissions"] as? [String: String])?["actions"] == "read", "upload-sarif reads the run")
        // Until --locker-repository names it, the repository is one that cannot exist, which the
        // install step refuses to build from.
        #expect(environment["LOCKER_REPOSITORY"] == "https://locker-repository.invalid/locker.git")

        // GitHub's own schemas of workflows and actions, as check-jsonschema carries them.
        for (file, schema) in [
            (".github/workflows/locker.yml", "vendor.github-workflows"),
            (".github/actions/setup-locker/action.yml", "vendor.github-actions"),
        ] {
            let run = try LockerRun(
                ["check-jsonschema", "--builtin-schema", schema, file], in: repository.root, environment: [:],
                executable: "/usr/bin/env")
            #expect(run.status == 0, "\(file): \(run.stdout)\(run.stderr)")
        }
    }

    @Test func aPullRequestIsCheckedForWhatItChangedAndGetsSARIF() throws {
        let repository = try Repository()
        defer { repository.remove() }
        let base = try repository.git(["rev-parse", "HEAD"])
        let workflow = try repository.yaml(".github/workflows/locker.yml")
        let guide = try repository.read("guides/welcome-aboard.md")
        try repository.write("guides/welcome-aboard.md", guide + "\nSee also [[the-engine]].\n")
        try repository.commit("Link a note not written yet")

        let expressions = ["github.event.pull_request.base.sha": base]
        let steps = try Self.runJob("check", of: workflow, in: repository, expressions: expressions)
        let install = try #require(steps["Install locker"])
        #expect(install.status == 0, "\(install.output)")
        #expect(
            install.output.contains("locker \(try #require((workflow["env"] as? [String: String])?["LOCKER_VERSION"]))")
        )
        let check = try #require(steps["Check the changed notes"])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("::error file=guides/welcome-aboard.md,line=31,"), "\(check.output)")
        let sarif = try #require(steps["Write the problems as SARIF"])
        #expect(sarif.status == 0, "\(sarif.output)")
        let log = try #require(
            try JSONSerialization.jsonObject(with: Data(try repository.read("locker.sarif").utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        let results = try #require(((log["runs"] as? [[String: Any]])?.first)?["results"] as? [[String: Any]])
        #expect(results.map { $0["ruleId"] as? String } == ["link.broken"])

        // Written, in both languages (`--strict` fails a missing translation), the note makes the
        // pull request clean.
        try repository.write("guides/the-engine.md", "---\ntitle: The engine\n---\nOil, water, belt.\n")
        try repository.write("guides/the-engine.ru.md", "---\ntitle: Двигатель\n---\nМасло, вода, ремень.\n")
        try FileManager.default.removeItem(at: repository.root.appendingPathComponent("locker.sarif"))
        try repository.commit("Write the note")
        let clean = try Self.runJob(
            "check", of: workflow, in: repository, expressions: expressions,
            only: ["Install locker", "Check the changed notes"])
        #expect(clean["Check the changed notes"]?.status == 0, "\(clean["Check the changed notes"]?.output ?? "")")
    }

    @Test func theMainBranchIsBuiltSignedIndexedAndLaidOutForTheHost() throws {
        let repository = try Repository()
        defer { repository.remove() }
        let keys = repository.workspace.root.appendingPathComponent("keys")
        #expect(try LockerRun(["keygen", "--out", keys.path], in: repository.workspace.root).status == 0)
        let key = try String(contentsOf: keys.appendingPathComponent("locker-signing.key"), encoding: .utf8)
        let workflow = try repository.yaml(".github/workflows/locker.yml")
        var expressions = [
            "secrets.LOCKER_SIGNING_KEY": key, "vars.LOCKER_BASE_URL": "https://sail.example/",
            "secrets.CLOUDFLARE_API_TOKEN != ''": "false",
        ]
        let steps = try Self.runJob("publish", of: workflow, in: repository, expressions: expressions)
        for name in ["Install locker", "Build", "Index the site for search", "Lay out the two deploy roots"] {
            let step = try #require(steps[name], "the job has the step \(name)")
            #expect(step.status == 0, "\(name): \(step.output)")
        }
        let published = repository.root.appendingPathComponent("publish")
        let bundle = try ContentBundle(contentsOf: published.appendingPathComponent("bundles/bundles/v1"))
        #expect(bundle.manifest.signedBy?.count == 1)
        #expect(bundle.manifest.siteURL == "https://sail.example/")
        for file in ["bundles/_headers", "site/_headers", "site/index.html", "site/pagefind/pagefind.js"] {
            #expect(FileManager.default.fileExists(atPath: published.appendingPathComponent(file).path), "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: published.appendingPathComponent("bundles/site").path))

        // Without the secret (a fork, or a repository that has not set it): built, unsigned.
        expressions["secrets.LOCKER_SIGNING_KEY"] = ""
        expressions["vars.LOCKER_BASE_URL"] = ""
        let unsigned = try Self.runJob(
            "publish", of: workflow, in: repository, expressions: expressions, only: ["Install locker", "Build"])
        #expect(unsigned["Build"]?.status == 0, "\(unsigned["Build"]?.output ?? "")")
        let rebuilt = try ContentBundle(contentsOf: repository.root.appendingPathComponent("build/bundles/v1"))
        #expect(rebuilt.manifest.signedBy == nil)
    }
}
