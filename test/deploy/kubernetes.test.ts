// deploy/kubernetes/: no cluster runs here, so each overlay is rendered as `kubectl apply -k` would render it
// (`kubectl kustomize`; CI installs Debian's kubernetes-client) and every object is checked two ways:
// - against the Kubernetes API schemas (kubernetes-models: types, required fields, formats);
// - against the program: every Deployment runs the compiled main with a real --role and only variables config.ts
//   reads, passes loadConfig's production checks, takes every secret by reference; its ports are the ports the
//   program listens on, its probes real paths on them; the internal port is on no Ingress; only fronts reach a data
//   role's region hop; a pod outlives its own drain and grace; every role's traces (the overlay's ConfigMap, read
//   by envFrom) go to a collector's OTLP/HTTP port with settings tracing.ts accepts.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as assert from "uvu/assert";
import { parseAllDocuments } from "yaml";
import { samplerOf, tracesExport, tracingEnvironmentNames } from "../../src/runtime/tracing.js";
import { environmentNames, loadConfig } from "../../src/config/config.js";
import { regions } from "../../src/config/regions.js";
import { isProbePath } from "../../src/runtime/probe-paths.js";
import { roleOf, sampleSecret } from "../support/deploy-manifests.js";
import { suite } from "../support/suite.js";

const Kubernetes = suite("deploy/kubernetes");
const root = fileURLToPath(new URL("../../deploy/kubernetes/", import.meta.url));
const overlays = readdirSync(`${root}overlays`);

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML, checked field by field below
type Manifest = Record<string, any>;

/** The objects `kubectl apply -k overlays/<name>` would send. */
function render(overlay: string): Manifest[] {
  const output = execFileSync("kubectl", ["kustomize", `${root}overlays/${overlay}`], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  return parseAllDocuments(output)
    .map((document) => document.toJSON() as Manifest | null)
    .filter((object): object is Manifest => object !== null);
}

/** kubernetes-models' class for an object's apiVersion and kind (core v1 objects live under "v1"). */
async function schemaOf(object: Manifest): Promise<new (data: Manifest) => { validate(): void }> {
  const module = `kubernetes-models/${object["apiVersion"]}/${object["kind"]}`;
  const exports = (await import(module)) as Record<string, new (data: Manifest) => { validate(): void }>;
  const model = exports[object["kind"] as string];
  assert.ok(model, `${module} exports ${object["kind"]}`);
  return model;
}

const of = (objects: Manifest[], kind: string) => objects.filter((object) => object["kind"] === kind);
const named = (objects: Manifest[], kind: string, name: string) =>
  of(objects, kind).find((object) => object["metadata"].name === name);
const containerOf = (deployment: Manifest): Manifest => deployment["spec"].template.spec.containers[0];
const portsOf = (container: Manifest): Map<string, number> =>
  new Map((container["ports"] ?? []).map((port: Manifest) => [port["name"], port["containerPort"]]));
/** A probe's or Service's port (a name or a number) as a number in `container`. */
const portNumber = (container: Manifest, port: string | number) =>
  typeof port === "number" ? port : portsOf(container).get(port);

/** Settings that carry a secret: never a literal in a manifest. */
const secretSetting = (name: string) =>
  ["DATABASE_URL", "REDIS_URL", "TOKEN_KEY_ENCRYPTION_KEY", "MAIL_TRANSPORT"].includes(name) ||
  name.startsWith("REGION_DATABASE_URL_");

/** The ConfigMaps `envFrom` names in `container`, each one of `objects` (the render holds every one it refers to). */
function configMapsOf(container: Manifest, objects: Manifest[]): Manifest[] {
  return (container["envFrom"] ?? []).map((source: Manifest) => {
    const name = source["configMapRef"]?.name;
    const map = named(objects, "ConfigMap", name);
    assert.ok(map, `envFrom names ConfigMap ${name}, which the overlay makes`);
    return map;
  });
}

/**
 * The environment a container gets: its ConfigMaps' entries (envFrom), then its own variables over them, each secret
 * reference filled with a sample of its setting.
 */
function environmentOf(container: Manifest, objects: Manifest[]): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const map of configMapsOf(container, objects)) Object.assign(environment, map["data"]);
  for (const variable of container["env"] ?? []) {
    environment[variable.name] = variable.valueFrom?.secretKeyRef ? sampleSecret(variable.name) : variable.value;
  }
  return environment;
}

const rendered = new Map(overlays.map((overlay) => [overlay, render(overlay)]));

Kubernetes("there are overlays, each renders, and every object is valid against the Kubernetes schemas", async () => {
  assert.equal([...overlays].sort(), ["production", "staging"]);
  for (const [overlay, objects] of rendered) {
    assert.ok(objects.length > 20, overlay);
    for (const object of objects) {
      const Model = await schemaOf(object);
      try {
        new Model(object).validate();
      } catch (error) {
        assert.unreachable(`${overlay}: ${object["kind"]} ${object["metadata"].name}: ${(error as Error).message}`);
      }
      // Every object lands in the overlay's namespace; no Secret is ever written in the manifests.
      assert.ok(object["metadata"].namespace?.startsWith("partner-api"), `${object["kind"]} has a namespace`);
      assert.is.not(object["kind"], "Secret");
    }
  }
});

Kubernetes(
  "every Deployment runs a real --role with only variables config.ts reads, secrets by reference, and passes its production checks",
  () => {
    const known = new Set([...environmentNames, ...tracingEnvironmentNames, "NODE_ENV"]);
    for (const [overlay, objects] of rendered) {
      const roles = new Map<string, string>();
      for (const deployment of of(objects, "Deployment")) {
        const name = `${overlay}/${deployment["metadata"].name}`;
        const container = containerOf(deployment);
        const role = roleOf(container["command"]);
        assert.ok(role, `${name}: ${container["command"].join(" ")} is not a role main accepts`);
        roles.set(deployment["metadata"].name, role.role === "data" ? `data ${role.region}` : role.role);
        const variables: Manifest[] = container["env"];
        const fromMaps = configMapsOf(container, objects).flatMap((map) => Object.keys(map["data"] ?? {}));
        assert.equal(
          [...variables.map((variable) => variable["name"]), ...fromMaps].filter((variable) => !known.has(variable)),
          [],
          `${name} sets variables config.ts does not read`,
        );
        for (const variable of variables.filter((each) => secretSetting(each["name"]))) {
          assert.is(variable["value"], undefined, `${name}: ${variable["name"]} is a literal`);
          assert.is(variable["valueFrom"].secretKeyRef.name, "partner-api", `${name}: ${variable["name"]}`);
        }
        const environment = environmentOf(container, objects);
        assert.is(environment["NODE_ENV"], "production", name);
        const config = loadConfig(environment, role);
        // A data role reads its own region's database only.
        if (role.role === "data") {
          assert.equal(
            Object.keys(environment).filter((variable) => variable.startsWith("REGION_DATABASE_URL_")),
            [`REGION_DATABASE_URL_${role.region.toUpperCase()}`],
          );
        }
        // A pod outlives its own drain (readiness answers 503, the endpoint leaves) and grace (calls finish).
        assert.ok(
          deployment["spec"].template.spec.terminationGracePeriodSeconds >
            config.shutdownDrainSeconds + config.shutdownGraceSeconds,
          `${name}: terminationGracePeriodSeconds`,
        );
        // The container's named ports are the ports this role listens on.
        const ports = portsOf(container);
        const expected: Record<string, number | undefined> = {
          api: config.listen.port,
          consent: config.listen.authPort,
          console: config.listen.consolePort,
          internal: config.listen.grpcPort,
          hop: config.listen.regionGrpcPort,
          metrics: config.metrics.port,
        };
        for (const [portName, number] of ports) assert.is(number, expected[portName], `${name}: port ${portName}`);
        if (ports.has("metrics")) assert.is(config.metrics.host, "0.0.0.0", `${name}: metrics reachable`);
      }
      assert.equal(
        [...roles.values()].sort(),
        ["front", "worker", ...regions.map((region) => `data ${region}`)].sort(),
        overlay,
      );
    }
  },
);

Kubernetes(
  "probes: the fronts' real paths on the API port, the data roles' grpc.health.v1 on the internal port",
  () => {
    for (const [overlay, objects] of rendered) {
      for (const deployment of of(objects, "Deployment")) {
        const name = `${overlay}/${deployment["metadata"].name}`;
        const container = containerOf(deployment);
        const role = roleOf(container["command"])!.role;
        if (role === "worker") {
          // Its one listener is /metrics: nothing to probe (the process exits on a fatal error).
          assert.is(container["readinessProbe"], undefined, name);
          continue;
        }
        const config = loadConfig(environmentOf(container, objects), roleOf(container["command"])!);
        for (const kind of ["readinessProbe", "livenessProbe"]) {
          const probe: Manifest = container[kind];
          assert.ok(probe, `${name}: ${kind}`);
          if (role === "front") {
            assert.ok(isProbePath(probe["httpGet"].path), `${name}: ${kind} path ${probe["httpGet"].path}`);
            assert.is(portNumber(container, probe["httpGet"].port), config.listen.port, `${name}: ${kind} port`);
          } else if (probe["grpc"]) {
            assert.is(probe["grpc"].port, config.listen.grpcPort, `${name}: ${kind}`);
          } else {
            assert.is(portNumber(container, probe["tcpSocket"].port), config.listen.grpcPort, `${name}: ${kind}`);
          }
        }
        assert.equal(container["readinessProbe"].httpGet?.path ?? "grpc", role === "front" ? "/readyz" : "grpc");
      }
    }
  },
);

Kubernetes(
  "Services and the Ingress: the public ports only; each region's hop URL names its data role's Service and hop port",
  () => {
    for (const [overlay, objects] of rendered) {
      const front = named(objects, "Deployment", "front")!;
      const ingress = of(objects, "Ingress");
      assert.is(ingress.length, 1, overlay);
      const backends = ingress[0]!["spec"].rules.flatMap((rule: Manifest) =>
        rule["http"].paths.map((path: Manifest) => path["backend"].service),
      );
      assert.equal(
        backends.map((backend: Manifest) => `${backend["name"]}:${backend["port"].name}`),
        ["front:api", "front:consent", "front:console"],
      );
      // The hosts the Ingress serves are the fronts' public URLs.
      const environment = environmentOf(containerOf(front), objects);
      assert.equal(
        ingress[0]!["spec"].rules.map((rule: Manifest) => rule["host"]),
        [environment["BASE_URL"], environment["AUTH_URL"], environment["CONSOLE_URL"]].map(
          (url) => new URL(String(url)).hostname,
        ),
      );
      for (const service of of(objects, "Service")) {
        // Every Service selects pods of one Deployment, and names ports its container has.
        const selected = of(objects, "Deployment").filter((deployment) =>
          Object.entries(service["spec"].selector).every(
            ([label, value]) => deployment["spec"].template.metadata.labels[label] === value,
          ),
        );
        assert.is(selected.length, 1, `${overlay}: Service ${service["metadata"].name}`);
        for (const port of service["spec"].ports)
          assert.ok(
            portsOf(containerOf(selected[0]!)).has(port.targetPort),
            `${service["metadata"].name}:${port.name}`,
          );
      }
      for (const region of regions) {
        const url = new URL(environment[`REGION_GRPC_URL_${region.toUpperCase()}`]!);
        const service = named(objects, "Service", url.hostname);
        assert.ok(service, `${overlay}: the ${region} hop URL names a Service`);
        assert.equal(
          service!["spec"].ports.map((port: Manifest) => `${port.name}:${port.port}`),
          [`hop:${url.port}`],
        );
      }
    }
  },
);

Kubernetes(
  "NetworkPolicies: deny by default; a data role's hop from fronts only; internal ports from operators only",
  () => {
    for (const [overlay, objects] of rendered) {
      const policies = of(objects, "NetworkPolicy");
      const deny = policies.find((policy) => policy["metadata"].name === "default-deny-ingress")!;
      // Every pod of the namespace (kustomize 5 leaves the empty selector; kustomize 2 adds the common label).
      assert.ok(
        ["{}", '{"app.kubernetes.io/part-of":"partner-api"}'].includes(
          JSON.stringify(deny["spec"].podSelector.matchLabels ?? {}),
        ),
      );
      assert.equal(deny["spec"].ingress, undefined);
      const podsOf = (selector: Manifest) =>
        of(objects, "Deployment").filter((deployment) =>
          Object.entries(selector["matchLabels"] ?? {}).every(
            ([label, value]) => deployment["spec"].template.metadata.labels[label] === value,
          ),
        );
      /** The ports any rule opens to pods of `deployment`, with the peers each admits. */
      const openings = (deployment: Manifest) =>
        policies
          .filter((policy) => podsOf(policy["spec"].podSelector).includes(deployment))
          .flatMap((policy) => policy["spec"].ingress ?? [])
          .flatMap((rule: Manifest) =>
            rule["ports"].map((port: Manifest) => ({ port: port["port"], from: rule["from"] })),
          );
      for (const deployment of of(objects, "Deployment")) {
        const role = roleOf(containerOf(deployment)["command"])!.role;
        for (const opening of openings(deployment)) {
          if (opening.port === 8091) {
            // Only pods labelled as hop clients, and only fronts carry that label.
            assert.is(role, "data", overlay);
            const clients = opening.from.flatMap((peer: Manifest) => podsOf(peer["podSelector"]));
            assert.equal(
              clients.map((client: Manifest) => client["metadata"].name),
              ["front"],
            );
            assert.ok(opening.from.every((peer: Manifest) => !peer["namespaceSelector"]));
          } else if (opening.port === 8090) {
            assert.ok(
              opening.from.every(
                (peer: Manifest) =>
                  peer["podSelector"]?.matchLabels?.["partner-api/operator"] === "true" ||
                  peer["namespaceSelector"]?.matchLabels?.["partner-api/operators"] === "true",
              ),
              `${overlay}: the internal port of ${deployment["metadata"].name} opens to operators only`,
            );
          } else {
            assert.ok([8080, 8081, 8082, 9464].includes(opening.port), `${overlay}: port ${opening.port}`);
            if (opening.port !== 9464) assert.is(role, "front");
          }
        }
      }
    }
  },
);

Kubernetes("the fronts scale and every role keeps one pod through a voluntary disruption", () => {
  for (const [overlay, objects] of rendered) {
    const autoscalers = of(objects, "HorizontalPodAutoscaler");
    assert.equal(
      autoscalers.map((autoscaler) => autoscaler["spec"].scaleTargetRef.name),
      ["front"],
    );
    assert.ok(autoscalers[0]!["spec"].minReplicas >= 2, overlay);
    const budgets = of(objects, "PodDisruptionBudget");
    for (const deployment of of(objects, "Deployment")) {
      const labels = deployment["spec"].template.metadata.labels;
      const budget = budgets.filter((each) =>
        Object.entries(each["spec"].selector.matchLabels).every(([label, value]) => labels[label] === value),
      );
      assert.is(budget.length, 1, `${overlay}: a budget for ${deployment["metadata"].name}`);
      assert.ok(deployment["spec"].replicas > budget[0]!["spec"].minAvailable, deployment["metadata"].name);
    }
  }
});

Kubernetes("every role exports traces the same way, with settings the program starts with", () => {
  for (const [overlay, objects] of rendered) {
    const settings = new Set<string>();
    for (const deployment of of(objects, "Deployment")) {
      const name = `${overlay}/${deployment["metadata"].name}`;
      const environment = environmentOf(containerOf(deployment), objects);
      const traced = Object.fromEntries(
        tracingEnvironmentNames.filter((key) => environment[key] !== undefined).map((key) => [key, environment[key]]),
      );
      // What main.ts does with them at start: an endpoint it can send to, a sampler it knows (else exit 2).
      const target = tracesExport(traced);
      assert.ok(target, `${name}: traces on`);
      assert.is(new URL(target.url).port, "4318", `${name}: the collector's OTLP/HTTP port`);
      samplerOf(traced);
      settings.add(JSON.stringify(traced));
    }
    assert.is(settings.size, 1, `${overlay}: one tracing configuration for every role: ${[...settings].join(" | ")}`);
  }
});

Kubernetes.run();
