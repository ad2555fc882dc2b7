// Small word lists for the infinite-content generator. Changing, adding or
// reordering an entry changes generated content for existing URLs (the golden
// vectors in tests/integration/infinite/generator.test.ts pin them): append
// nothing casually.

/** Display first name, then its ASCII form for usernames and emails. */
export const FIRST_NAMES: readonly (readonly [string, string])[] = [
  ['Ada', 'ada'], ['Amara', 'amara'], ['Aylin', 'aylin'], ['Björn', 'bjorn'], ['Carmen', 'carmen'],
  ['Chidi', 'chidi'], ['Dmitri', 'dmitri'], ['Elena', 'elena'], ['Emeka', 'emeka'], ['Farah', 'farah'],
  ['Felix', 'felix'], ['Grace', 'grace'], ['Hana', 'hana'], ['Hugo', 'hugo'], ['Ines', 'ines'],
  ['Ivan', 'ivan'], ['Jamal', 'jamal'], ['Jin', 'jin'], ['José', 'jose'], ['Kaito', 'kaito'],
  ['Kofi', 'kofi'], ['Lars', 'lars'], ['Leila', 'leila'], ['Lena', 'lena'], ['Lucía', 'lucia'],
  ['Malik', 'malik'], ['Maya', 'maya'], ['Mei', 'mei'], ['Mateo', 'mateo'], ['Nadia', 'nadia'],
  ['Nikhil', 'nikhil'], ['Noah', 'noah'], ['Olga', 'olga'], ['Omar', 'omar'], ['Priya', 'priya'],
  ['Rafael', 'rafael'], ['Rosa', 'rosa'], ['Sam', 'sam'], ['Sana', 'sana'], ['Søren', 'soren'],
  ['Tariq', 'tariq'], ['Thea', 'thea'], ['Tomás', 'tomas'], ['Uma', 'uma'], ['Vera', 'vera'],
  ['Wei', 'wei'], ['Yara', 'yara'], ['Yusuf', 'yusuf'], ['Zoë', 'zoe'], ['Zane', 'zane'],
];

export const LAST_NAMES: readonly (readonly [string, string])[] = [
  ['Abara', 'abara'], ['Andersen', 'andersen'], ['Bauer', 'bauer'], ['Bianchi', 'bianchi'], ['Castillo', 'castillo'],
  ['Chen', 'chen'], ['Costa', 'costa'], ['Dubois', 'dubois'], ['Eriksson', 'eriksson'], ['Fernández', 'fernandez'],
  ['Fischer', 'fischer'], ['García', 'garcia'], ['Haddad', 'haddad'], ['Hansen', 'hansen'], ['Ivanova', 'ivanova'],
  ['Jensen', 'jensen'], ['Kapoor', 'kapoor'], ['Kim', 'kim'], ['Kowalski', 'kowalski'], ['Larsen', 'larsen'],
  ['Lopez', 'lopez'], ['Mensah', 'mensah'], ['Moreau', 'moreau'], ['Müller', 'muller'], ['Nakamura', 'nakamura'],
  ['Nguyen', 'nguyen'], ['Novak', 'novak'], ['Okafor', 'okafor'], ["O'Neill", 'oneill'], ['Patel', 'patel'],
  ['Petrov', 'petrov'], ['Quinn', 'quinn'], ['Rahman', 'rahman'], ['Rossi', 'rossi'], ['Santos', 'santos'],
  ['Schmidt', 'schmidt'], ['Silva', 'silva'], ['Sato', 'sato'], ['Tanaka', 'tanaka'], ['Torres', 'torres'],
  ['Van Dijk', 'vandijk'], ['Varga', 'varga'], ['Wagner', 'wagner'], ['Walsh', 'walsh'], ['Yilmaz', 'yilmaz'],
  ['Zhang', 'zhang'],
];

/** RFC 2606 reserved domains only: generated addresses never reach a real mailbox. */
export const EMAIL_DOMAINS: readonly string[] = [
  'example.com', 'example.org', 'example.net', 'mail.example.com', 'inbox.example.org', 'post.example.net',
];

export const ROLES: readonly string[] = [
  'backend engineer', 'product designer', 'data librarian', 'site reliability engineer', 'technical writer',
  'frontend developer', 'security researcher', 'science teacher', 'pastry chef', 'urban planner',
  'mobile developer', 'QA lead', 'open-source maintainer', 'sound engineer', 'bookbinder',
  'database administrator', 'landscape photographer', 'community manager', 'machine-learning engineer', 'nurse',
];

export const PLACES: readonly string[] = [
  'Lisbon', 'Lagos', 'Osaka', 'Montréal', 'Tallinn', 'Nairobi', 'Valparaíso', 'Leeds', 'Porto Alegre', 'Hanoi',
  'Ljubljana', 'Accra', 'Bergen', 'Pune', 'Kraków', 'Halifax', 'Tbilisi', 'Cork', 'Medellín', 'Busan',
];

export const INTERESTS: readonly string[] = [
  'caching', 'sourdough', 'trail running', 'HTTP semantics', 'old synthesizers', 'chess openings', 'birdwatching',
  'type systems', 'film photography', 'bouldering', 'home espresso', 'mechanical keyboards', 'urban gardening',
  'distributed tracing', 'jazz piano', 'board games', 'cycling', 'accessibility', 'fermentation', 'retro consoles',
];

export const NOUNS: readonly string[] = [
  'cache', 'deploy', 'garden', 'kitchen', 'release', 'timeout', 'budget', 'playlist', 'sprint', 'recipe',
  'dashboard', 'bicycle', 'library', 'workflow', 'schema', 'notebook', 'queue', 'proxy', 'habit', 'index',
  'morning routine', 'test suite', 'load balancer', 'spreadsheet', 'bookshelf', 'retrospective', 'migration',
  'side project', 'API', 'commute', 'compiler', 'weekend', 'roadmap', 'backlog', 'camera', 'neighbourhood',
];

export const PLURALS: readonly string[] = [
  'caches', 'deploys', 'gardens', 'retries', 'headers', 'timeouts', 'recipes', 'dashboards', 'bicycles', 'habits',
  'queues', 'proxies', 'indexes', 'test suites', 'spreadsheets', 'migrations', 'side projects', 'APIs', 'compilers',
  'roadmaps', 'cameras', 'tomatoes', 'meetings', 'notebooks', 'redirects', 'cookies', 'invoices', 'logs',
];

export const ADJECTIVES: readonly string[] = [
  'quiet', 'stubborn', 'surprising', 'fragile', 'boring', 'elegant', 'slow', 'honest', 'careful', 'messy',
  'tiny', 'forgotten', 'reliable', 'cheap', 'practical', 'overlooked', 'strange', 'patient', 'noisy', 'gentle',
  'predictable', 'brittle', 'generous', 'lazy', 'curious', 'modest',
];

export const VERBS: readonly string[] = [
  'rebuilt', 'measured', 'simplified', 'broke', 'fixed', 'rewrote', 'replaced', 'tested', 'cleaned up', 'moved',
  'documented', 'profiled', 'automated', 'shipped', 'abandoned', 'doubled', 'halved', 'untangled', 'migrated',
  'rescued', 'benchmarked', 'repainted', 'planted', 'cooked', 'tuned',
];

export const VERBS_PRESENT: readonly string[] = [
  'rebuild', 'measure', 'simplify', 'break', 'fix', 'rewrite', 'replace', 'test', 'clean up', 'move',
  'document', 'profile', 'automate', 'ship', 'untangle', 'migrate', 'rescue', 'benchmark', 'tune', 'plan',
];

export const TIME_PHRASES: readonly string[] = [
  'last week', 'over the weekend', 'this spring', 'after lunch', 'three years ago', 'on a rainy Tuesday',
  'during the outage', 'before the holidays', 'every morning', 'at two in the morning', 'in a single afternoon',
  'once a month', 'last autumn', 'on the train home',
];

export const PEOPLE: readonly string[] = [
  'my team', 'a colleague', 'our intern', 'my neighbour', 'the on-call engineer', 'my sister', 'a reader',
  'the new manager', 'an old friend', 'our support desk', 'my landlord', 'a stranger on a forum',
];

export const UNITS: readonly string[] = ['days', 'weeks', 'hours', 'minutes', 'months', 'steps', 'lines', 'tries'];

export const BRANDS: readonly string[] = [
  'Northwind', 'Halvard & Co.', 'Brightfield', 'Kestrel', 'Oakline', 'Tidewater', 'Juniper Labs', 'Morrow',
  'Fennel & Finch', 'Calder', 'Larkspur', 'Basalt', 'Wren Works', 'Alder', 'Cobalt Street',
];

export const MATERIALS: readonly string[] = [
  'Walnut', 'Steel', 'Linen', 'Ceramic', 'Bamboo', 'Merino', 'Aluminium', 'Cork', 'Canvas', 'Oak', 'Copper',
  'Recycled Plastic', 'Glass', 'Leather', 'Cotton',
];

export const PRODUCT_ADJECTIVES: readonly string[] = [
  'Compact', 'Classic', 'Everyday', 'Foldable', 'Heavy-Duty', 'Lightweight', 'Modular', 'Quiet', 'Travel',
  'Waterproof', 'Slim', 'Pro', 'Mini', 'Insulated', 'Adjustable',
];

export const PRODUCT_NOUNS: readonly string[] = [
  'Desk Lamp', 'Backpack', 'Water Bottle', 'Notebook', 'Keyboard', 'Chef\u2019s Knife', 'Headphones', 'Kettle',
  'Plant Pot', 'Umbrella', 'Cutting Board', 'Phone Stand', 'Wallet', 'Blanket', 'Coffee Grinder', 'Bike Light',
  'Tote Bag', 'Wall Clock', 'Pen Set', 'Travel Mug', 'Desk Mat', 'Reading Chair', 'Rain Jacket', 'Toolkit',
];

export const FEATURES: readonly string[] = [
  'a two-year warranty', 'replaceable parts', 'a matte finish', 'a recycled-cardboard box', 'a magnetic clasp',
  'a braided cable', 'a lifetime repair programme', 'dishwasher-safe parts', 'a non-slip base', 'reinforced seams',
  'an auto-off timer', 'a hidden pocket', 'USB-C charging', 'three colour options', 'a spare strap',
];

export const SIZES: readonly string[] = ['XS', 'S', 'M', 'L', 'XL', '2XL'];

/** Currency code, decimal places, lowest and highest price in minor units. */
export const CURRENCIES: readonly (readonly [string, number, number, number])[] = [
  ['USD', 2, 499, 49_999], ['EUR', 2, 499, 44_999], ['GBP', 2, 399, 39_999], ['JPY', 0, 500, 60_000],
  ['CAD', 2, 599, 59_999], ['AUD', 2, 699, 69_999], ['SEK', 2, 4_900, 499_900], ['CHF', 2, 490, 44_990],
];

/** Endings of prices in minor units: real shops price at .99, .95, .49 or round. */
export const PRICE_ENDINGS: readonly number[] = [99, 95, 49, 0, 90];

/** Review lines per rating band (4–5, 3, 1–2), so a text never contradicts its stars. */
export const REVIEWS_HIGH: readonly string[] = [
  'Does what it says', 'Better than expected', 'Would buy again', 'Great gift', 'Sturdier than it looks',
  'Exactly as described', 'Worth every penny', 'Arrived quickly and works well',
];
export const REVIEWS_MID: readonly string[] = [
  'Solid, but pricey', 'Fine for the price', 'Does the job, nothing more', 'Good once I read the manual',
  'Smaller than I expected',
];
export const REVIEWS_LOW: readonly string[] = [
  'Returned it', 'Not for me', 'Stopped working after a week', 'Not as pictured', 'Would not buy again',
];

export const MONTHS: readonly string[] = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November',
  'December',
];

export const GENERIC_WORDS: readonly string[] = [
  'amber', 'harbor', 'signal', 'meadow', 'copper', 'lantern', 'orbit', 'pebble', 'summit', 'willow', 'cinder',
  'delta', 'ember', 'falcon', 'glacier', 'hollow', 'island', 'jasper', 'kernel', 'lumen', 'marble', 'nectar',
  'onyx', 'prairie', 'quartz', 'river', 'saffron', 'thistle', 'umber', 'velvet', 'wander', 'zephyr',
];

/**
 * Sentence templates. `{x}` slots draw from the list of that name (see
 * SLOT_LISTS in text.ts); `{n}` is a small number. A template starting with a
 * slot gets its first letter capitalised.
 */
export const SENTENCES: readonly string[] = [
  'We {verb} the {noun} {time}, and nothing caught fire.',
  'The {adj} part was the {noun}, not the {plural}.',
  '{people} asked why the {noun} was so {adj}; the answer took {n} {units} to find.',
  'I {verb} our {plural} {time} and wrote down every surprise.',
  'Most {plural} are {adj} until the day they are not.',
  'It turns out the {noun} had been {adj} all along.',
  'Nobody plans to {verb_present} {a_noun}, but here we are.',
  'The first attempt {verb} the {noun}; the second one {verb} it properly.',
  'If you only {verb_present} one thing this year, make it the {noun}.',
  '{a_adj} {noun} beats a clever one every time.',
  '{people} suggested we {verb_present} the {plural} first, which was good advice.',
  'After {n} {units}, the {noun} finally felt {adj}.',
  'There is nothing {adj} about {plural} once you measure them.',
  'I keep a list of {adj} {plural}; this one went straight to the top.',
  'We learned more from the broken {noun} than from the working one.',
  'The numbers were {adj}, so we {verb} the {noun} again {time}.',
  'Half of the {plural} in this story are {adj}, and that is fine.',
  'Write it down, {verb_present} it, then {verb_present} it again.',
  'The {noun} survived, the {plural} did not.',
  '{people} still thinks the {noun} is {adj}, and they may be right.',
  'Small {plural} add up: {n} of them cost us a whole {noun}.',
  'Every {noun} has a story; this one starts {time}.',
  'Ask {people} about the {noun} and watch their face.',
  'We measured twice, {verb} once, and the {noun} held.',
];

export const TITLES: readonly string[] = [
  'How we {verb} our {noun} in {n} {units}',
  'Why the {noun} is {adj}',
  '{a_adj} guide to {plural}',
  'What {people} taught me about {plural}',
  '{n} {adj} lessons from {a_noun}',
  'The {noun} we {verb} {time}',
  'Notes on {adj} {plural}',
  'I {verb} the {noun} and you can too',
  'Against {adj} {plural}',
  'When the {noun} gets {adj}',
  'Field notes: {plural} and the {noun}',
  'Stop trying to {verb_present} every {noun}',
];

export const BIO_TEMPLATES: readonly string[] = [
  '{role} in {place}. Writes about {interest} and {interest}.',
  '{role} by day, {interest} by night. Based in {place}.',
  'Former {role}, now mostly {interest}. {place}.',
  '{role}. Opinions on {interest}, fewer on {interest}.',
  'Lives in {place}; thinks about {interest} more than is healthy.',
  '{role} who collects {interest} stories. {place}.',
];

export const PRODUCT_SENTENCES: readonly string[] = [
  'Made from {material} with {feature}.',
  'Ships with {feature} and {feature}.',
  '{people} tested an early version for {n} {units} and asked for {feature}.',
  'Designed in {place}, built to be {adj} rather than clever.',
  'Pairs well with {plural}, or with nothing at all.',
  'The {material} body is {adj} in the hand and easy to clean.',
  'Every unit comes with {feature}.',
  'Sized for {a_noun}, tough enough for {a_noun}.',
];

/** Colour or variant codes that end some SKUs. */
export const VARIANTS: readonly string[] = ['BK', 'WH', 'GR', 'NV', 'RD', 'NT', 'SL', 'OL'];
