package dev.mcprelay.virtual;

import org.springframework.stereotype.Component;

import dev.mcprelay.policy.UpstreamView;

/**
 * The view of a member a virtual server's request has ({@link UpstreamView}): the caller and the values of the
 * member's {@code servers.<id>.headers} that differ per caller or request ({@code from-caller-claim},
 * {@code from-request-header}, read from the client's request, which the member's exchange carries). What the virtual
 * server keeps of a member's answers is kept per this view, as the pass-through path keeps a server's catalogue: two
 * requests of one caller that the member can tell apart never share a page. The headers interceptors set for the
 * member's exchange are set inside it, after this view is read: a member whose interceptors set upstream headers from
 * something the view does not hold must have that header configured ({@code from-request-header}) for its pages to be
 * kept apart.
 */
@Component
class MemberViews {

	/** {@code member}'s view for the request of {@code call}, by the member's settings in the request's snapshot. */
	UpstreamView of(VirtualCall call, String member) {
		return UpstreamView.beforeInterceptors(member, call.exchange().caller(),
				name -> call.exchange().requestHeaders().getAll(name),
				call.exchange().configuration().properties().servers().get(member));
	}

}
