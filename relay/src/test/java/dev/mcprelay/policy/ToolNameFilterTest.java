package dev.mcprelay.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.mcprelay.config.ToolsProperties;

class ToolNameFilterTest {

	@ParameterizedTest(name = "allow [{0}] deny [{1}]: {2} offered = {3}")
	@CsvSource(delimiter = ';', value = {
			";;anything;true",
			"echo;;echo;true",
			"echo;;echo2;false",
			"echo;;Echo;false",
			"github_*;;github_create_issue;true",
			"github_*;;github_;true",
			"github_*;;gitlab_x;false",
			"*_read;;file_read;true",
			"*_read;;file_read_all;false",
			"a*b*c;;a-x-b-y-c;true",
			"a*b*c;;a-x-c;false",
			"a.b;;axb;false",
			"a.b;;a.b;true",
			"(x)+;;(x)+;true",
			"(x)+;;xx;false",
			";secret_*;secret_key;false",
			";secret_*;public;true",
			"*;*admin*;superadmin_tool;false",
			"echo,github_*;github_delete_*;github_delete_repo;false",
			"echo,github_*;github_delete_*;github_list;true",
			"echo,github_*;github_delete_*;echo;true",
			"echo,github_*;github_delete_*;other;false",
			"ns/*;;ns/tool.v2;true" })
	void decidesWhichToolsAreOffered(String allow, String deny, String tool, boolean offered) {
		ToolNameFilter filter = new ToolNameFilter(new ToolsProperties(list(allow), list(deny)));

		assertThat(filter.offers(tool)).isEqualTo(offered);
	}

	private static List<String> list(String csv) {
		return csv == null ? List.of() : List.of(csv.split(","));
	}

}
