//! Which address a request comes from, behind load balancers the operator
//! trusts (`--trusted-proxies`). Requests without a valid key are rate limited
//! per client address; without this, every anonymous client behind a balancer
//! shares the balancer's address, and so one limit.
//!
//! A trusted proxy's `X-Forwarded-For` is believed, and only the part that
//! trusted proxies appended: the entries are read from the right (the nearest
//! hop first), and the first address that is not itself a trusted proxy is the
//! client. Whatever a client writes into the header itself lies to the left of
//! that and is never reached.

use ipnet::IpNet;
use std::net::IpAddr;

/// The proxies whose `X-Forwarded-For` is believed; none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parses a comma-separated list of addresses and CIDR ranges:
    /// `10.0.0.0/8, 192.168.1.7, fd00::/8`.
    pub fn parse(list: &str) -> Result<TrustedProxies, String> {
        list.split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| format!("not an IP address or CIDR range: {entry:?}"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client's address, given the connection's peer and the request's
    /// `X-Forwarded-For` header values in the order they came.
    pub fn client(&self, peer: IpAddr, forwarded: &[&str]) -> IpAddr {
        let mut client = peer.to_canonical();
        let hops = forwarded.iter().rev().flat_map(|value| value.rsplit(','));
        for hop in hops {
            if !self.trusts(client) {
                break;
            }
            // A hop that is not an address (`unknown`, an obfuscated name)
            // ends the walk at the last proxy that could be checked.
            match hop.trim().parse::<IpAddr>() {
                Ok(address) => client = address.to_canonical(),
                Err(_) => break,
            }
        }
        client
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn lists_of_addresses_and_ranges_parse() {
        let proxies = TrustedProxies::parse(" 10.0.0.0/8, 192.168.1.7,fd00::/8 ,").unwrap();
        assert!(proxies.trusts(ip("10.200.3.4")));
        assert!(proxies.trusts(ip("192.168.1.7")));
        assert!(!proxies.trusts(ip("192.168.1.8")));
        assert!(proxies.trusts(ip("fd12::1")));
        assert!(!proxies.trusts(ip("2001:db8::1")));
        assert_eq!(
            TrustedProxies::parse("").unwrap(),
            TrustedProxies::default()
        );
        let error = TrustedProxies::parse("10.0.0.0/8, balancer").unwrap_err();
        assert!(error.contains("\"balancer\""), "{error}");
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let proxies = TrustedProxies::parse("10.0.0.1").unwrap();
        let peer = ip("203.0.113.9");
        assert_eq!(proxies.client(peer, &["198.51.100.1"]), peer);
        let none = TrustedProxies::default();
        assert_eq!(none.client(peer, &["198.51.100.1"]), peer);
    }

    #[test]
    fn the_nearest_untrusted_hop_is_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let peer = ip("10.0.0.1");
        // A client-written entry (first), the client, then an inner proxy.
        let forwarded = ["6.6.6.6, 198.51.100.7", "10.1.2.3"];
        assert_eq!(proxies.client(peer, &forwarded), ip("198.51.100.7"));
        // Only proxies: the farthest one is all that is known.
        assert_eq!(
            proxies.client(peer, &["10.9.9.9, 10.1.2.3"]),
            ip("10.9.9.9")
        );
        // No header: the proxy itself.
        assert_eq!(proxies.client(peer, &[]), peer);
        // A hop that is not an address stops the walk at the proxy before it.
        assert_eq!(
            proxies.client(peer, &["198.51.100.7, unknown, 10.1.2.3"]),
            ip("10.1.2.3")
        );
    }

    #[test]
    fn ipv4_mapped_addresses_are_compared_as_ipv4() {
        let proxies = TrustedProxies::parse("10.0.0.1").unwrap();
        assert_eq!(
            proxies.client(ip("::ffff:10.0.0.1"), &[" ::ffff:198.51.100.7 "]),
            ip("198.51.100.7")
        );
    }
}
