import Foundation

/// The example documents `feeds demo` serves, written for this project: an RSS 2.0 feed
/// (a bakery's journal, with a podcast enclosure), an Atom feed (a robotics lab's notes), a
/// JSON Feed (a stargazing almanac), an HTML page that links to the Atom feed, and the
/// bookmarks of `DemoContent+Bookmarks.swift`. `{{base}}` stands for the server's base URL.
public enum DemoContent {
    public static let rssPath = "/bakery/feed.rss"
    public static let atomPath = "/tidepool/atom.xml"
    public static let jsonFeedPath = "/almanac/feed.json"
    /// The page whose `<link rel="alternate">` leads to the Atom feed.
    public static let pagePath = "/tidepool/"
    /// The token the demo's bookmarks API asks for.
    public static let token = "demo-token"
    /// A word several entries share, in more than one feed.
    public static let searchWord = "sourdough"
    /// The bookmark `feeds demo` adds with no network and then pushes to the API.
    public static let offlineBookmark = "https://harbour.example/tide-tables"

    /// Every document by path, with `{{base}}` replaced by `baseURL` (which ends in `/`).
    public static func resources(baseURL: URL) -> [String: DemoResource] {
        let base = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        func resource(_ type: String, _ text: String) -> DemoResource {
            DemoResource(contentType: type, text: text.replacingOccurrences(of: "{{base}}", with: base))
        }
        return [
            rssPath: resource("application/rss+xml; charset=utf-8", rss),
            atomPath: resource("application/atom+xml; charset=utf-8", atom),
            jsonFeedPath: resource("application/feed+json; charset=utf-8", jsonFeed),
            pagePath: resource("text/html; charset=utf-8", page),
            "/": resource("text/html; charset=utf-8", index),
        ]
    }

    static let index = """
        <!DOCTYPE html>
        <html><head><title>feeds demo</title></head>
        <body><h1>feeds demo server</h1><ul>
        <li><a href="{{base}}bakery/feed.rss">Harbour Lane Bakery Journal (RSS 2.0)</a></li>
        <li><a href="{{base}}tidepool/">Tidepool Robotics Lab (page linking to Atom)</a></li>
        <li><a href="{{base}}almanac/feed.json">Backyard Sky Almanac (JSON Feed)</a></li>
        <li><a href="{{base}}api/bookmarks/">Bookmarks API</a></li>
        </ul></body></html>
        """

    static let page = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>Tidepool Robotics Lab</title>
          <link rel="stylesheet" href="{{base}}tidepool/style.css">
          <link rel="alternate" type="application/atom+xml" title="Lab notes" href="{{base}}tidepool/atom.xml">
        </head>
        <body>
          <h1>Tidepool Robotics Lab</h1>
          <p>Small machines that survive salt water, sand and curious gulls.
          Follow our <a href="{{base}}tidepool/atom.xml">lab notes</a>.</p>
        </body>
        </html>
        """

    static let rss = """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <channel>
            <title>Harbour Lane Bakery Journal</title>
            <link>https://harbourlane.example/</link>
            <description>Notes from the ovens of a small seaside bakery.</description>
            <language>en</language>
            <item>
              <title>Waking the sourdough starter after the holidays</title>
              <link>https://harbourlane.example/journal/waking-the-starter</link>
              <guid isPermaLink="false">harbourlane-2026-001</guid>
              <dc:creator>Mara Quell</dc:creator>
              <pubDate>Mon, 02 Nov 2026 06:15:00 +0000</pubDate>
              <description>Three feedings, a warm shelf and patience.</description>
              <content:encoded><![CDATA[<p>Our <strong>sourdough</strong> starter, Barnacle, spent two weeks in the cold.
        It took three feedings of rye flour and water at 26&nbsp;°C before it doubled again.</p>
        <p>Tip: a rubber band on the jar marks where it began.</p>]]></content:encoded>
            </item>
            <item>
              <title>Rye crackers with fennel &amp; sea salt</title>
              <link>https://harbourlane.example/journal/rye-crackers</link>
              <guid>https://harbourlane.example/journal/rye-crackers</guid>
              <dc:creator>Mara Quell</dc:creator>
              <pubDate>Tue, 03 Nov 2026 07:40:00 +0000</pubDate>
              <description><![CDATA[Discard from the <em>sourdough</em> jar becomes a snack.]]></description>
              <content:encoded><![CDATA[<p>Mix 200&nbsp;g of starter discard with 100&nbsp;g rye, olive oil, toasted fennel and flaky salt.
        Roll thin, score, bake at 180&nbsp;°C until the edges brown.</p>]]></content:encoded>
            </item>
            <item>
              <title>Why our croissants rest overnight</title>
              <link>https://harbourlane.example/journal/croissant-rest</link>
              <guid>https://harbourlane.example/journal/croissant-rest</guid>
              <dc:creator>Ivo Brandt</dc:creator>
              <pubDate>Wed, 04 Nov 2026 05:30:00 +0000</pubDate>
              <description>Cold butter, relaxed gluten, thirty-seven layers.</description>
              <content:encoded><![CDATA[<p>Laminated dough fights back when it is warm. A night in the cold room lets the
        gluten relax, so each of the three folds stays crisp and the butter never smears.</p>]]></content:encoded>
            </item>
            <item>
              <title>Podcast: a morning on the bread shift</title>
              <link>https://harbourlane.example/journal/podcast-bread-shift</link>
              <guid>https://harbourlane.example/journal/podcast-bread-shift</guid>
              <dc:creator>Mara Quell</dc:creator>
              <pubDate>Thu, 05 Nov 2026 09:00:00 +0000</pubDate>
              <description>Twenty minutes of ovens, timers and the first customers at six.</description>
              <enclosure url="https://harbourlane.example/audio/bread-shift.mp3" length="18874368" type="audio/mpeg"/>
            </item>
            <item>
              <title>Seaweed focaccia, a reader's request</title>
              <link>https://harbourlane.example/journal/seaweed-focaccia</link>
              <guid>https://harbourlane.example/journal/seaweed-focaccia</guid>
              <dc:creator>Ivo Brandt</dc:creator>
              <pubDate>Fri, 06 Nov 2026 08:20:00 +0000</pubDate>
              <description>Dulse flakes, rosemary and a very wet dough.</description>
              <content:encoded><![CDATA[<p>A reader from the harbour office asked for something briny. Dulse flakes folded into an
        85% hydration dough, dimpled with olive oil and rosemary.</p>]]></content:encoded>
            </item>
            <item>
              <title>Flour from the valley mill</title>
              <link>https://harbourlane.example/journal/valley-mill</link>
              <guid>https://harbourlane.example/journal/valley-mill</guid>
              <dc:creator>Mara Quell</dc:creator>
              <pubDate>Sat, 07 Nov 2026 10:10:00 +0000</pubDate>
              <description>Stone-ground wheat changes how much water a loaf wants.</description>
              <content:encoded><![CDATA[<p>The valley mill grinds on stone, slowly, so the flour stays cool. It drinks more water:
        our country loaf and the sourdough rolls now take 5% more.</p>]]></content:encoded>
            </item>
          </channel>
        </rss>
        """

    static let atom = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom">
          <title>Tidepool Robotics Lab: notes</title>
          <subtitle>Small machines for rock pools.</subtitle>
          <link rel="self" href="{{base}}tidepool/atom.xml"/>
          <link rel="alternate" href="{{base}}tidepool/"/>
          <id>urn:uuid:5f0c2a8e-tidepool-lab-notes</id>
          <updated>2026-11-08T16:00:00Z</updated>
          <entry>
            <title>Crab-walk gait, version three</title>
            <link rel="alternate" href="{{base}}tidepool/notes/crab-walk-v3"/>
            <id>urn:uuid:tidepool-note-0001</id>
            <published>2026-11-01T09:00:00Z</published>
            <updated>2026-11-01T09:30:00Z</updated>
            <author><name>Noor Achterberg</name></author>
            <summary>Sideways is faster on wet granite.</summary>
            <content type="html">&lt;p&gt;Our six-legged rover now walks &lt;em&gt;sideways&lt;/em&gt;, like the shore crabs it
        lives beside. On wet granite it slips 40% less.&lt;/p&gt;</content>
          </entry>
          <entry>
            <title>Salt ate our bearings</title>
            <link rel="alternate" href="{{base}}tidepool/notes/salt-bearings"/>
            <id>urn:uuid:tidepool-note-0002</id>
            <published>2026-11-03T14:20:00+01:00</published>
            <author><name>Teo Marchetti</name></author>
            <content type="html">&lt;p&gt;After ten days in the splash zone the steel bearings were rust.
        Ceramic ones cost more and still spin.&lt;/p&gt;</content>
          </entry>
          <entry>
            <title>A camera that blinks</title>
            <link rel="alternate" href="{{base}}tidepool/notes/camera-wiper"/>
            <id>urn:uuid:tidepool-note-0003</id>
            <updated>2026-11-04T11:00:00Z</updated>
            <author><name>Noor Achterberg</name></author>
            <content type="html">&lt;p&gt;A silicone wiper clears the lens every thirty seconds, so spray no longer blinds the rover.&lt;/p&gt;</content>
          </entry>
          <entry>
            <title>Counting anemones by night</title>
            <link rel="alternate" href="{{base}}tidepool/notes/anemone-census"/>
            <id>urn:uuid:tidepool-note-0004</id>
            <published>2026-11-05T22:45:00Z</published>
            <author><name>Lina Okafor</name></author>
            <summary type="html">&lt;p&gt;Red light, slow shutter, &lt;strong&gt;412&lt;/strong&gt; anemones.&lt;/p&gt;</summary>
          </entry>
          <entry>
            <title>Lunch break: the lab bakes bread</title>
            <link rel="alternate" href="{{base}}tidepool/notes/lab-bread"/>
            <id>urn:uuid:tidepool-note-0005</id>
            <published>2026-11-06T12:30:00Z</published>
            <author><name>Teo Marchetti</name></author>
            <content type="html">&lt;p&gt;Not robotics: Teo keeps a sourdough loaf rising beside the soldering station,
        where the air is always warm.&lt;/p&gt;</content>
          </entry>
          <entry>
            <title>Tide tables as a scheduler</title>
            <link rel="alternate" href="{{base}}tidepool/notes/tide-scheduler"/>
            <id>urn:uuid:tidepool-note-0006</id>
            <published>2026-11-08T16:00:00Z</published>
            <author><name>Lina Okafor</name></author>
            <content type="html">&lt;p&gt;The rover now plans its day from the tide table: survey at low water, shelter at high.&lt;/p&gt;</content>
          </entry>
        </feed>
        """

    static let jsonFeed = """
        {
          "version": "https://jsonfeed.org/version/1.1",
          "title": "Backyard Sky Almanac",
          "home_page_url": "https://skyalmanac.example/",
          "feed_url": "{{base}}almanac/feed.json",
          "authors": [{"name": "Petra Lindqvist"}],
          "items": [
            {
              "id": "almanac-2026-11-01",
              "url": "https://skyalmanac.example/2026/11/jupiter-opposition",
              "title": "Jupiter at its brightest",
              "content_html": "<p>Jupiter rises at sunset this week. Binoculars show four moons in a line.</p>",
              "date_published": "2026-11-01T18:00:00Z"
            },
            {
              "id": "almanac-2026-11-03",
              "url": "https://skyalmanac.example/2026/11/leonids",
              "title": "Leonids: where and when",
              "content_html": "<p>The peak falls before dawn on the 17th. Face east, let your eyes adapt for twenty minutes.</p>",
              "date_published": "2026-11-03T19:30:00Z",
              "authors": [{"name": "Sam Ocampo"}]
            },
            {
              "id": "almanac-2026-11-04",
              "url": "https://skyalmanac.example/2026/11/red-torch",
              "title": "Make a red torch from a bike light",
              "content_html": "<p>Red film over a bike light keeps your night vision. <a href=\\"https://skyalmanac.example/diy\\">More projects</a>.</p>",
              "date_published": "2026-11-04T20:00:00Z"
            },
            {
              "id": 20261106,
              "url": "https://skyalmanac.example/2026/11/thermos",
              "title": "What to pack for a cold night out",
              "content_text": "A thermos of tea, a folding chair, two pairs of socks and a sourdough sandwich.",
              "date_published": "2026-11-06T17:45:00Z",
              "date_modified": "2026-11-06T19:00:00Z"
            },
            {
              "id": "almanac-2026-11-07",
              "url": "https://skyalmanac.example/2026/11/andromeda",
              "title": "Finding Andromeda without a telescope",
              "content_html": "<p>Start at the W of Cassiopeia and hop down two stars. The smudge is 2.5 million light years away.</p>",
              "date_published": "2026-11-07T21:10:00Z",
              "authors": [{"name": "Sam Ocampo"}]
            },
            {
              "id": "almanac-2026-11-09",
              "url": "https://skyalmanac.example/2026/11/moon-terminator",
              "title": "The Moon's terminator line",
              "content_html": "<p>Craters stand out best along the line between day and night on the Moon.</p>",
              "date_published": "2026-11-09T18:20:00Z"
            }
          ]
        }
        """
}
