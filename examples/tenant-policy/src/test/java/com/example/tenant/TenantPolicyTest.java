package com.example.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.mcprelay.api.PluginSettings;
import dev.mcprelay.api.ToolsCallRequest;
import dev.mcprelay.api.ToolsListResponse;
import dev.mcprelay.test.InterceptorTestKit;
import dev.mcprelay.test.TestResult;

/** The tenant policy, unit-tested with mcp-relay's test kit: no relay, no Spring, no network. */
class TenantPolicyTest {

	private static final String SEARCH = """
			{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp","tenant":"forged"},"_meta":{"progressToken":7}}}""";

	private static final String DELETE = """
			{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_repo","arguments":{"repo":"r"}}}""";

	private static final PluginSettings DEFAULTS = PluginSettings.of(Map.of());

	private final InterceptorTestKit kit = InterceptorTestKit.forServer("github");

	@Test
	void aCallCarriesTheCallersTenantWhateverTheClientWrote() {
		TestResult result = kit.header("X-Tenant", "acme").request(ToolsCallRequest.class, SEARCH).run(new TenantToolCalls(DEFAULTS));

		assertThat(result.forwarded()).isEqualTo("""
				{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp","tenant":"acme"},"_meta":{"progressToken":7}}}""");
	}

	@Test
	void onlyTheAdminTenantDeletes() {
		TestResult acme = kit.header("X-Tenant", "acme").request(ToolsCallRequest.class, DELETE).run(new TenantToolCalls(DEFAULTS));
		TestResult admin = kit.header("X-Tenant", "admin").request(ToolsCallRequest.class, DELETE).run(new TenantToolCalls(DEFAULTS));

		assertThat(acme.rejected()).isTrue();
		assertThat(acme.answer()).isEqualTo("""
				{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Deleting is reserved to the admin tenant."}}""");
		assertThat(admin.proceeded()).isTrue();
	}

	@Test
	void aRequestWithoutATenantIsRefusedFirst() {
		TestResult without = kit.userRequest(SEARCH).run(new RequireTenant(DEFAULTS));
		TestResult with = kit.header("X-Tenant", "acme").userRequest(SEARCH).run(new RequireTenant(DEFAULTS));
		TestResult stream = kit.userRequestWithoutBody("GET").run(new RequireTenant(DEFAULTS));

		assertThat(without.rejected()).isTrue();
		assertThat(without.error().getMessage()).contains("X-Tenant");
		assertThat(with.proceeded()).isTrue();
		assertThat(stream.proceeded()).as("a GET carries no message to name a tenant in").isTrue();
	}

	@Test
	void theTenantHeaderAndTheAdminTenantAreSettings() {
		PluginSettings settings = PluginSettings.of(Map.of("plugins.tenant-policy.header", "X-Team",
				"plugins.tenant-policy.admin-tenant", "ops"));

		TestResult ops = kit.header("X-Team", "ops").request(ToolsCallRequest.class, DELETE).run(new TenantToolCalls(settings));
		TestResult untenanted = kit.header("X-Tenant", "admin").userRequest(SEARCH).run(new RequireTenant(settings));

		assertThat(ops.proceeded()).isTrue();
		assertThat(untenanted.error().getMessage()).contains("X-Team");
	}

	@Test
	void onlyTheAdminTenantSeesTheDeleteTools() {
		String list = """
				{"jsonrpc":"2.0","id":3,"method":"tools/list"}""";
		String tools = """
				{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"delete_repo","inputSchema":{"type":"object"}}]}}""";

		TestResult acme = kit.header("X-Tenant", "acme").response(ToolsListResponse.class, list, tools).run(new TenantToolList(DEFAULTS));
		TestResult admin = kit.header("X-Tenant", "admin").response(ToolsListResponse.class, list, tools).run(new TenantToolList(DEFAULTS));

		assertThat(acme.forwarded()).contains("\"search\"").doesNotContain("delete_repo");
		assertThat(admin.forwarded()).isEqualTo(tools);
	}

}
