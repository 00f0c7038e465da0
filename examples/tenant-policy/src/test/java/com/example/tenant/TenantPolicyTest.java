package com.example.tenant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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

	private final InterceptorTestKit kit = InterceptorTestKit.forServer("github");

	@Test
	void aCallCarriesTheCallersTenantWhateverTheClientWrote() {
		TestResult result = kit.header("X-Tenant", "acme").request(ToolsCallRequest.class, SEARCH).run(new TenantToolCalls());

		assertThat(result.forwarded()).isEqualTo("""
				{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp","tenant":"acme"},"_meta":{"progressToken":7}}}""");
	}

	@Test
	void onlyTheAdminTenantDeletes() {
		TestResult acme = kit.header("X-Tenant", "acme").request(ToolsCallRequest.class, DELETE).run(new TenantToolCalls());
		TestResult admin = kit.header("X-Tenant", "admin").request(ToolsCallRequest.class, DELETE).run(new TenantToolCalls());

		assertThat(acme.rejected()).isTrue();
		assertThat(acme.answer()).isEqualTo("""
				{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"Deleting is reserved to the admin tenant."}}""");
		assertThat(admin.proceeded()).isTrue();
	}

	@Test
	void aRequestWithoutATenantIsRefusedFirst() {
		TestResult without = kit.userRequest(SEARCH).run(new RequireTenant());
		TestResult with = kit.header("X-Tenant", "acme").userRequest(SEARCH).run(new RequireTenant());
		TestResult stream = kit.userRequestWithoutBody("GET").run(new RequireTenant());

		assertThat(without.rejected()).isTrue();
		assertThat(without.error().getMessage()).contains("X-Tenant");
		assertThat(with.proceeded()).isTrue();
		assertThat(stream.proceeded()).as("a GET carries no message to name a tenant in").isTrue();
	}

	@Test
	void onlyTheAdminTenantSeesTheDeleteTools() {
		String list = """
				{"jsonrpc":"2.0","id":3,"method":"tools/list"}""";
		String tools = """
				{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"delete_repo","inputSchema":{"type":"object"}}]}}""";

		TestResult acme = kit.header("X-Tenant", "acme").response(ToolsListResponse.class, list, tools).run(new TenantToolList());
		TestResult admin = kit.header("X-Tenant", "admin").response(ToolsListResponse.class, list, tools).run(new TenantToolList());

		assertThat(acme.forwarded()).contains("\"search\"").doesNotContain("delete_repo");
		assertThat(admin.forwarded()).isEqualTo(tools);
	}

}
