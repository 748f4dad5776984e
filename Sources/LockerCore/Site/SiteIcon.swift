/// The site's icon: a sail on the Mothership deep blue, drawn as SVG so it is sharp at any size.
enum SiteIcon {
    static let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">\
        <rect width="64" height="64" rx="14" fill="#003366"/>\
        <path d="M33 10v34h17z" fill="#FAFAFA"/>\
        <path d="M30 16v28H15z" fill="#8E97FD"/>\
        <path d="M12 48h40l-5 7H17z" fill="#80B3E6"/>\
        </svg>

        """
}
